#pragma once
// Runs a program the way a user's shell would, for CLI tests.
#include <string>
#include <vector>

namespace kvscope::test {

struct process_result {
  int exit_code = -1;  // -1 when the process did not exit normally (signal)
  std::string out;
  std::string err;
};

// Runs argv[0] with the arguments, feeding `stdin_text` and capturing both output streams.
process_result run_process(const std::vector<std::string>& argv, const std::string& stdin_text = {});

// argv run as `ranks` MPI processes: mpirun, oversubscribed (more ranks than cores) and allowed
// as root (CI), through sh.
process_result run_mpi_ranks(const std::vector<std::string>& argv, int ranks = 3);

// The kvscope-cli binary built alongside the tests.
inline std::string cli_path() { return KVSCOPE_CLI_PATH; }

// tests/data, the project's own copies of test inputs.
inline std::string data_path(const std::string& name) {
  return std::string(KVSCOPE_TEST_DATA_DIR) + "/" + name;
}

// A generated load of 20 short requests, for CLI runs whose load is not what they test.
inline constexpr const char* small_load = "gen:rate=20,prompt=fixed:64,output=fixed:8,count=20,seed=3";

}  // namespace kvscope::test
