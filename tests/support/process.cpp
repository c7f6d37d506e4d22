#include "process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "temp_dir.hpp"

extern char** environ;

namespace kvscope::test {

process_result run_process(const std::vector<std::string>& argv, const std::string& stdin_text) {
  // Files rather than pipes: no deadlock however much the child prints.
  temp_dir dir;
  const std::string in_path = dir.file("stdin"), out_path = dir.file("stdout"),
                    err_path = dir.file("stderr");
  std::ofstream(in_path, std::ios::binary) << stdin_text;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  int status = 0;
  waitpid(pid, &status, 0);

  process_result result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(out_path);
  result.err = read_text(err_path);
  return result;
}

process_result run_mpi_ranks(const std::vector<std::string>& argv, int ranks) {
  std::string command = "mpirun --oversubscribe --allow-run-as-root -n " + std::to_string(ranks);
  for (const auto& a : argv) command += " '" + a + "'";
  return run_process({"/bin/sh", "-c", command});
}

}  // namespace kvscope::test
