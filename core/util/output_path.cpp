#include "util/output_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace kvscope {
namespace {

// Linux gives up on path resolution after 40 links too (ELOOP).
constexpr int max_links = 40;

const char* kind_of(mode_t mode) noexcept {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// `path`, and the file it leads to when that is another name, for messages.
std::string naming(const std::filesystem::path& path, const std::filesystem::path& resolved) {
  return resolved == path ? path.string() : path.string() + " (a link to " + resolved.string() + ")";
}

}  // namespace

expected<std::filesystem::path, std::string> resolve_output_path(const std::filesystem::path& path) {
  std::filesystem::path current = path;
  for (int links = 0; links <= max_links; ++links) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::vector<char> target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
    const ssize_t n = ::readlink(current.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size()) {
      return unexpected{path.string() + ": cannot read the link " + current.string() + ": " +
                        (n < 0 ? std::strerror(errno) : "it changed while being read")};
    }
    const std::filesystem::path next(std::string(target.data(), static_cast<std::size_t>(n)));
    // A relative target is relative to the folder holding the link.
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  return unexpected{path.string() + ": more than " + std::to_string(max_links) +
                    " symbolic links (a loop?)"};
}

expected<void, std::string> check_replaceable(const std::filesystem::path& path) {
  const auto resolved = resolve_output_path(path);
  if (!resolved) return unexpected{resolved.error()};
  struct stat st {};
  if (::lstat(resolved->c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {};
  return unexpected{naming(path, *resolved) + ": is " + kind_of(st.st_mode) +
                    ", not a regular file; refusing to replace it"};
}

expected<void, std::string> check_output_path(const std::filesystem::path& path) {
  if (path.empty()) return unexpected{std::string("empty output path")};
  if (auto replaceable = check_replaceable(path); !replaceable) return replaceable;
  const auto resolved = resolve_output_path(path);
  if (!resolved) return unexpected{resolved.error()};
  if (!resolved->has_filename()) {
    return unexpected{naming(path, *resolved) + ": names a folder, not a file"};
  }
  const auto folder = resolved->has_parent_path() ? resolved->parent_path() : ".";
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    return unexpected{naming(path, *resolved) + ": folder '" + folder.string() + "' " +
                      (errno == ENOENT ? std::string("does not exist")
                                       : std::string("cannot be used: ") + std::strerror(errno))};
  }
  if (!S_ISDIR(st.st_mode)) {
    return unexpected{naming(path, *resolved) + ": '" + folder.string() + "' is not a folder"};
  }
  // The temporary file is created in the folder and renamed over the target.
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return unexpected{naming(path, *resolved) + ": folder '" + folder.string() +
                      "' is not writable: " + std::strerror(errno)};
  }
  return {};
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) noexcept {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace kvscope
