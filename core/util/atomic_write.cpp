#include "util/atomic_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace kvscope {
namespace {

std::string errno_message(const std::filesystem::path& path, std::string_view what) {
  return path.string() + ": " + std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

expected<void, std::string> write_file_atomically(const std::filesystem::path& path,
                                                  std::string_view content) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::random_device entropy;
  const auto temp = dir / ("." + path.filename().string() + ".tmp-" + std::to_string(entropy()));

  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return unexpected{errno_message(path, "cannot create temporary file")};

  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto msg = errno_message(path, "write failed");
      ::close(fd);
      ::unlink(temp.c_str());
      return unexpected{msg};
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  const bool closed = ::close(fd) == 0;
  if (!synced || !closed) {
    auto msg = errno_message(path, "flush failed");
    ::unlink(temp.c_str());
    return unexpected{msg};
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    auto msg = errno_message(path, "cannot replace file");
    ::unlink(temp.c_str());
    return unexpected{msg};
  }
  return {};
}

}  // namespace kvscope
