#pragma once
// Which policy config governed which steps of a live run: its initial config, then each
// reconfigure in its command log from the step it was applied at. A reset starts the run over
// under its initial config, so only the steps since the last reset count. What a policy
// export's provenance reports: the share of the run the exported config governed.
#include <cstdint>
#include <vector>

#include "policy/policy_config.hpp"
#include "run/commands.hpp"

namespace kvscope {

struct config_span {
  std::uint64_t first_step = 0;  // the first step run under `config`
  std::uint64_t end_step = 0;    // one past the last
  policy_config config;
};

// The spans of a run at step `steps` that started under `initial` with command log `log`,
// oldest first; empty spans are left out.
std::vector<config_span> config_history(const policy_config& initial, const std::vector<logged_command>& log,
                                        std::uint64_t steps);
// The share of those steps `config` governed, in [0, 1]; 0 for a run of no steps.
double governed_share(const std::vector<config_span>& history, const policy_config& config);

}  // namespace kvscope
