#include "load/line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "load/load_error.hpp"

namespace kvscope {
namespace {

constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

std::string system_message(const std::string& name, std::string_view what) {
  return name + ": " + std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

line_reader::line_reader(const std::filesystem::path& path) : name_(path.string()) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw load_error(load_error_kind::bad_input, system_message(name_, "cannot open"));
  struct stat st {};
  if (::fstat(fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd_);
      fd_ = -1;
      throw load_error(load_error_kind::bad_input, name_ + ": is a directory, not a load file");
    }
    if (S_ISREG(st.st_mode)) total_ = static_cast<std::uint64_t>(st.st_size);
  }
  capacity_ = chunk_bytes;
  buf_.assign(capacity_ + padding, '\0');
}

line_reader::line_reader(std::string name, std::string_view content) : name_(std::move(name)) {
  capacity_ = content.size();
  buf_.assign(capacity_ + padding, '\0');
  if (!content.empty()) std::memcpy(buf_.data(), content.data(), content.size());
  end_ = content.size();
  total_ = content.size();
  eof_ = true;
}

line_reader::~line_reader() {
  if (fd_ >= 0) ::close(fd_);
}

void line_reader::restart() {
  line_no_ = 0;
  consumed_ = 0;
  begin_ = 0;
  if (fd_ < 0) return;  // in memory: the whole content is still in the buffer
  if (::lseek(fd_, 0, SEEK_SET) != 0) {
    throw load_error(load_error_kind::io_failure, system_message(name_, "cannot rewind"));
  }
  end_ = 0;
  eof_ = false;
}

std::size_t line_reader::capacity_from(std::string_view line) const noexcept {
  return static_cast<std::size_t>(buf_.data() + buf_.size() - line.data());
}

bool line_reader::fill() {
  if (eof_) return false;
  // Keep the unfinished line, moved to the front; grow only when it fills the whole buffer.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    if (capacity_ >= max_line_bytes) {
      throw load_error(load_error_kind::bad_input,
                       name_ + ":" + std::to_string(line_no_ + 1) + ": line longer than " +
                           std::to_string(max_line_bytes >> 20) +
                           " MiB (is this a text trace?)");
    }
    capacity_ *= 2;
    buf_.resize(capacity_ + padding, '\0');
  }
  for (;;) {
    const ssize_t n = ::read(fd_, buf_.data() + end_, capacity_ - end_);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw load_error(load_error_kind::io_failure, system_message(name_, "read failed"));
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<std::size_t>(n);
    return true;
  }
}

bool line_reader::next(std::string_view& line) {
  for (;;) {
    const char* start = buf_.data() + begin_;
    const void* nl = begin_ < end_ ? std::memchr(start, '\n', end_ - begin_) : nullptr;
    std::size_t length = 0, advance = 0;
    if (nl) {
      length = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      advance = length + 1;
    } else if (!fill()) {
      if (begin_ == end_) return false;
      length = advance = end_ - begin_;  // the last line has no '\n'
    } else {
      continue;
    }
    start = buf_.data() + begin_;
    line = std::string_view(start, length);
    begin_ += advance;
    consumed_ += advance;
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_no_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    return true;
  }
}

}  // namespace kvscope
