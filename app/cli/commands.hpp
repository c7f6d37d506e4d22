#pragma once
// Each subcommand lives in its own cmd_*.cpp and registers itself on the root app.
// A subcommand's callback stores its exit code (util/exit_status.hpp) in `exit_code`.
#include "util/exit_status.hpp"

namespace CLI {
class App;
}

namespace kvscope::cli {

using kvscope::exit_status;
using kvscope::exit_ok;
using kvscope::exit_runtime_failure;
using kvscope::exit_bad_input;

void add_policy_command(CLI::App& root, int& exit_code);
void add_validate_command(CLI::App& root, int& exit_code);
void add_bench_command(CLI::App& root, int& exit_code);
void add_info_command(CLI::App& root, int& exit_code);
void add_record_command(CLI::App& root, int& exit_code);
void add_simulate_command(CLI::App& root, int& exit_code);
void add_vllm_bench_commands(CLI::App& root, int& exit_code);
void add_replay_command(CLI::App& root, int& exit_code);
void add_tour_command(CLI::App& root, int& exit_code);
// Hidden: the manual page and bash completion, generated from `root` (after every other command).
void add_man_command(CLI::App& root, int& exit_code);
void add_sweep_command(CLI::App& root, int& exit_code);  // sweep and sweep-merge
void add_pareto_command(CLI::App& root, int& exit_code);
void add_tune_command(CLI::App& root, int& exit_code);
void add_fidelity_command(CLI::App& root, int& exit_code);  // check-fidelity

}  // namespace kvscope::cli
