#pragma once
// Each subcommand lives in its own cmd_*.cpp and registers itself on the root app.
// A subcommand's callback stores its exit code (DESIGN.md §7) in `exit_code`.
namespace CLI {
class App;
}

namespace kvscope::cli {

enum exit_status : int { exit_ok = 0, exit_runtime_failure = 1, exit_bad_input = 2 };

void add_policy_command(CLI::App& root, int& exit_code);
void add_validate_command(CLI::App& root, int& exit_code);
void add_bench_command(CLI::App& root, int& exit_code);
void add_info_command(CLI::App& root, int& exit_code);
void add_record_command(CLI::App& root, int& exit_code);
void add_simulate_command(CLI::App& root, int& exit_code);
void add_replay_command(CLI::App& root, int& exit_code);

}  // namespace kvscope::cli
