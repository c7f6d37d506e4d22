// A run killed by SIGINT, SIGTERM or SIGHUP leaves no temporary file beside its outputs, leaves
// existing outputs (the session too) as they were, and dies by that signal; so does a run whose
// --metrics cannot be written; running out of memory is a clear error.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "process.hpp"
#include "temp_dir.hpp"

extern char** environ;

namespace kvscope::test {
namespace {

// Names of the atomic writers' temporaries in `dir` (".NAME.tmp-N").
std::vector<std::string> temporaries(const std::filesystem::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const auto name = e.path().filename().string();
    if (name.find(".tmp-") != std::string::npos) found.push_back(name);
  }
  return found;
}

// Starts argv with the default action for SIGINT, SIGTERM and SIGHUP, whatever the test runner
// ignores.
pid_t spawn(const std::vector<std::string>& argv) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM, SIGXFSZ, SIGUSR1}) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

class CliInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(CliInterrupt, RemovesTemporariesKeepsOutputsAndDiesByTheSignal) {
  const int signal = GetParam();
  temp_dir dir;
  const auto metrics = dir.file("m.csv");
  write_text(metrics, "an earlier run's metrics\n");
  const auto session = dir.file("s.json");
  write_text(session, "an earlier run's session\n");
  // Far more requests than the run reaches before the signal.
  const pid_t pid = spawn({cli_path(), "simulate", "--load",
                           "gen:rate=200,prompt=fixed:512,output=fixed:64,count=100000000,seed=1",
                           "--model", "tiny", "--budget", "4MiB", "--quiet", "--metrics", metrics,
                           "--requests", dir.file("r.csv"), "--session", session});
  ASSERT_GT(pid, 0);
  // Wait (without a time limit on the assertion) until both outputs' temporaries exist: the
  // run has started writing.
  while (temporaries(dir.path()).size() < 2) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the run ended before it was signalled";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(::kill(pid, signal), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 0, signal);
  EXPECT_EQ(temporaries(dir.path()), std::vector<std::string>{});
  EXPECT_EQ(read_text(metrics), "an earlier run's metrics\n");
  EXPECT_EQ(read_text(session), "an earlier run's session\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.csv")));
}

std::string signal_name(const ::testing::TestParamInfo<int>& param) {
  const char* abbrev = sigabbrev_np(param.param);
  return abbrev ? std::string("SIG") + abbrev : std::to_string(param.param);
}

// SIGPIPE, SIGALRM, SIGXFSZ and SIGUSR1 left temporaries (of up to a gigabyte, from `record`)
// behind before they were caught as SIGINT, SIGTERM and SIGHUP are.
INSTANTIATE_TEST_SUITE_P(Signals, CliInterrupt,
                         ::testing::Values(SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM, SIGXFSZ, SIGUSR1),
                         signal_name);

// Files may grow to 100 blocks (51 or 102 KB): room for the session, not for the metrics of
// thousands of steps. SIGXFSZ is ignored, so the write fails with EFBIG instead of killing.
TEST(CliFailedOutput, AFailedMetricsWriteLeavesTheSessionAsItWas) {
  temp_dir dir;
  const auto metrics = dir.file("m.csv");
  const auto session = dir.file("s.json");
  write_text(session, "an earlier run's session\n");
  const auto r = run_process({"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 100 && exec \"$0\" \"$@\"",
                              cli_path(), "simulate", "--load",
                              "gen:rate=50,prompt=fixed:64,output=fixed:64,count=2000,seed=1", "--model",
                              "tiny", "--budget", "4MiB", "--quiet", "--metrics", metrics, "--session",
                              session});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(metrics), std::string::npos) << r.err;
  EXPECT_EQ(read_text(session), "an earlier run's session\n");
  EXPECT_FALSE(std::filesystem::exists(metrics));
  EXPECT_EQ(temporaries(dir.path()), std::vector<std::string>{});
}

// A data-mode budget the address space cannot hold: the pool's arena throws std::bad_alloc.
TEST(CliOutOfMemory, IsAClearErrorWithExitOne) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer runtimes reserve more address space than the limit allows";
#endif
  const auto r = run_process({"/bin/sh", "-c", "ulimit -v 2000000 && exec \"$0\" \"$@\"", cli_path(),
                              "simulate", "--load", "gen:rate=20,count=30,seed=1", "--model", "tiny",
                              "--budget", "8GiB", "--payload", "data", "--quiet"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "kvscope-cli: out of memory while running 'simulate' (a smaller --budget, a shorter "
                   "load or --payload accounting needs less)\n");
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace kvscope::test
