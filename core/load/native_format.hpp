#pragma once
// kvscope's own load format (docs/load-formats.md): JSON lines, a versioned header line, then one
// request per line. Recording any load to it and reading it back gives the same requests.
//   {"format":"kvscope-load","version":1,"source":"gen:rate=4,..."}
//   {"id":0,"arrival_s":0,"prompt_tokens":812,"output_tokens":164}
//   {"id":1,"arrival_s":0.2817,"prompt_tokens":96,"output_tokens":20,"prefix_block_size":16,
//    "prefix_hashes":[123,456],"label":"ChatGPT/Conversation log"}
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "load/trace_reader.hpp"

namespace kvscope {

inline constexpr std::string_view native_format_tag = "kvscope-load";
inline constexpr std::uint64_t native_format_version = 1;

// The header line, newline included; `source` records where the load came from.
std::string native_header_line(std::string_view source);

// Appends one request line, newline included: shortest round-trip numbers, fields in a fixed
// order, the prefix and label fields only when set. Precondition: the label is valid UTF-8.
void append_native_line(std::string& out, const request& r);

// Streams every request of `source` into `path` in the native format, atomically; at most about
// 1 MiB is buffered. Returns the number of requests. Throws load_error; the target is then untouched.
std::uint64_t record_native(request_source& source, const std::filesystem::path& path,
                            std::string_view source_description, const progress_fn& progress = {});

class native_reader final : public trace_reader {
 public:
  // Reads and checks the header line; throws load_error for a missing, foreign or newer header.
  native_reader(std::unique_ptr<line_reader> lines, const read_options& options);
  ~native_reader() override;

  std::string_view format_name() const noexcept override { return "native"; }
  // The header's "source", empty when it has none.
  const std::string& source_description() const noexcept { return source_; }

 private:
  row_status parse_row(std::string_view line, request& out, std::string& why) override;
  std::string output_field() const override { return "output_tokens"; }
  std::string time_field() const override { return "arrival_s"; }

  struct json_state;
  std::unique_ptr<json_state> json_;
  std::string source_;
};

}  // namespace kvscope
