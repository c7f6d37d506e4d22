#include "util/atomic_write.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <random>

#include "util/output_path.hpp"
#include "util/temp_registry.hpp"

namespace kvscope {
namespace {

// Writes reach the disk in pieces this large (rows of a metrics CSV are ~200 bytes).
constexpr std::size_t buffer_bytes = std::size_t{1} << 16;

std::string errno_message(const std::filesystem::path& path, std::string_view what) {
  return path.string() + ": " + std::string(what) + ": " + std::strerror(errno);
}

// Blocks every signal for its lifetime, so that a handler removing registered temporaries
// never runs between a temporary's creation and its registration.
class signals_blocked {
 public:
  signals_blocked() {
    sigset_t all;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, &previous_);
  }
  ~signals_blocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  signals_blocked(const signals_blocked&) = delete;
  signals_blocked& operator=(const signals_blocked&) = delete;

 private:
  sigset_t previous_{};
};

// ".m.csv.tmp-<pid>-": the prefix of every temporary this process makes for `final_name`.
std::string temporary_prefix(const std::string& final_name, pid_t pid) {
  return "." + final_name + ".tmp-" + std::to_string(pid) + "-";
}

// Temporaries a killed process (SIGKILL, the OOM killer, a power cut) left beside `target`:
// ".NAME.tmp-<pid>-<n>" whose process no longer exists, owned by us. Removed so that a run
// killed where it could not clean up costs no disk after the next write to the same file.
void remove_stale_temporaries(const std::filesystem::path& target) {
  const auto dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string head = "." + target.filename().string() + ".tmp-";
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(head)) continue;
    const std::string_view rest = std::string_view(name).substr(head.size());
    const auto dash = rest.find('-');
    if (dash == 0 || dash == std::string_view::npos) continue;
    pid_t pid = 0;
    bool digits = true;
    for (const char c : rest.substr(0, dash)) {
      digits = digits && c >= '0' && c <= '9' && pid < 100'000'000;
      pid = pid * 10 + (c - '0');
    }
    struct stat st {};
    if (!digits || pid <= 0 || ::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::getuid()) {
      continue;
    }
    if (::kill(pid, 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
  }
}

}  // namespace

atomic_file::~atomic_file() { discard(); }

void atomic_file::discard() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  remove_temporary();
}

void atomic_file::remove_temporary() noexcept {
  ::unlink(temp_.c_str());
  unregister_temporary(registered_);
  registered_ = -1;
}

expected<void, std::string> atomic_file::open(std::filesystem::path target) {
  discard();
  target_ = std::move(target);
  if (auto replaceable = check_replaceable(target_); !replaceable) return replaceable;
  auto resolved = resolve_output_path(target_);
  if (!resolved) return unexpected{resolved.error()};
  final_ = std::move(*resolved);
  const auto dir = final_.has_parent_path() ? final_.parent_path() : std::filesystem::path(".");
  remove_stale_temporaries(final_);
  std::random_device entropy;
  temp_ = dir / (temporary_prefix(final_.filename().string(), ::getpid()) + std::to_string(entropy()));
  {
    const signals_blocked blocked;
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) return unexpected{errno_message(target_, "cannot create temporary file")};
    registered_ = register_temporary(temp_.c_str());
  }
  // Replacing a file must not widen (or narrow) who may read it.
  struct stat st {};
  if (::stat(final_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::fchmod(fd_, st.st_mode & 07777);
  buffer_.clear();
  buffer_.reserve(buffer_bytes);
  return {};
}

expected<void, std::string> atomic_file::write(std::string_view bytes) {
  assert(is_open());
  if (buffer_.size() + bytes.size() > buffer_bytes) {
    if (auto flushed = flush_buffer(); !flushed) return flushed;
  }
  if (bytes.size() >= buffer_bytes) {
    buffer_.assign(bytes);
    return flush_buffer();
  }
  buffer_.append(bytes);
  return {};
}

expected<void, std::string> atomic_file::flush_buffer() {
  const char* data = buffer_.data();
  std::size_t left = buffer_.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return unexpected{errno_message(target_, "write failed")};
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  buffer_.clear();
  return {};
}

expected<void, std::string> atomic_file::commit() {
  assert(is_open());
  if (auto flushed = flush_buffer(); !flushed) {
    discard();
    return flushed;
  }
  const bool synced = ::fsync(fd_) == 0;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed) {
    auto message = errno_message(target_, "flush failed");
    remove_temporary();
    return unexpected{message};
  }
  // Something may have taken the target's place since open(): a FIFO or device would be
  // replaced by rename(), so look again.
  if (auto replaceable = check_replaceable(target_); !replaceable) {
    remove_temporary();
    return replaceable;
  }
  if (::rename(temp_.c_str(), final_.c_str()) != 0) {
    auto message = errno_message(target_, "cannot replace file");
    remove_temporary();
    return unexpected{message};
  }
  // Forgotten only after the rename: a signal just before it still finds the temporary.
  unregister_temporary(registered_);
  registered_ = -1;
  return {};
}

expected<void, std::string> write_file_atomically(const std::filesystem::path& path,
                                                  std::string_view content) {
  atomic_file file;
  if (auto opened = file.open(path); !opened) return opened;
  if (auto written = file.write(content); !written) return written;
  return file.commit();
}

}  // namespace kvscope
