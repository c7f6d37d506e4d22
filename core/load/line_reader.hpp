#pragma once
// Lines of a file read in fixed-size chunks, so a trace of any size takes constant memory.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kvscope {

class line_reader {
 public:
  // Readable bytes guaranteed after every returned line (simdjson parses lines in place).
  static constexpr std::size_t padding = 64;
  // A longer line is an error rather than an ever-growing buffer (a binary file has few '\n').
  static constexpr std::size_t max_line_bytes = std::size_t{16} << 20;

  // Opens `path`; throws load_error (bad_input) when it cannot be opened or is a directory.
  explicit line_reader(const std::filesystem::path& path);
  // Reads lines out of `content` (copied); `name` stands for the file in messages.
  line_reader(std::string name, std::string_view content);
  ~line_reader();
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;

  // The next line without its "\n" or "\r\n" (a UTF-8 byte-order mark is dropped from line 1);
  // false at the end. The view stays valid until the next call. Throws load_error on a read
  // failure (io_failure) or a line longer than max_line_bytes (bad_input).
  bool next(std::string_view& line);

  // Starts again from the first line (format detection peeks at line 1 first).
  void restart();

  // Bytes from the start of `line` (last returned) to the end of readable memory, >= its size + padding.
  std::size_t capacity_from(std::string_view line) const noexcept;

  std::uint64_t line_number() const noexcept { return line_no_; }  // of the last line returned
  std::uint64_t bytes_consumed() const noexcept { return consumed_; }
  std::uint64_t total_bytes() const noexcept { return total_; }  // file size when known, else 0
  const std::string& name() const noexcept { return name_; }

 private:
  bool fill();  // reads more; false at end of file

  std::string name_;
  int fd_ = -1;
  std::vector<char> buf_;        // data lives in [begin_, end_); `padding` spare bytes after buf_ size
  std::size_t capacity_ = 0;     // usable bytes of buf_ (excluding padding)
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::uint64_t line_no_ = 0, consumed_ = 0, total_ = 0;
};

}  // namespace kvscope
