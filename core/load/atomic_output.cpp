#include "load/atomic_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>

#include "load/load_error.hpp"

namespace kvscope {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what) {
  throw load_error(load_error_kind::io_failure,
                   path.string() + ": " + std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

atomic_output_file::atomic_output_file(std::filesystem::path target) : target_(std::move(target)) {
  const auto dir = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
  std::random_device entropy;
  temp_ = dir / ("." + target_.filename().string() + ".tmp-" + std::to_string(entropy()));
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(target_, "cannot create temporary file");
}

atomic_output_file::~atomic_output_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void atomic_output_file::write(std::string_view bytes) {
  const char* data = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(target_, "write failed");
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void atomic_output_file::commit() {
  if (::fsync(fd_) != 0) fail(target_, "flush failed");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(target_, "flush failed");
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail(target_, "cannot replace file");
  committed_ = true;
}

}  // namespace kvscope
