#include "run/config_history.hpp"

#include <variant>

namespace kvscope {

std::vector<config_span> config_history(const policy_config& initial, const std::vector<logged_command>& log,
                                        std::uint64_t steps) {
  std::vector<config_span> spans;
  config_span open{0, 0, initial};
  const auto close = [&](std::uint64_t at) {
    open.end_step = at;
    if (open.end_step > open.first_step) spans.push_back(open);
  };
  for (const logged_command& c : log) {
    if (std::holds_alternative<reset_command>(c.command)) {
      spans.clear();  // the run starts over: what ran before is not this run
      open = {0, 0, initial};
    } else if (const auto* r = std::get_if<reconfigure_command>(&c.command)) {
      if (validate(r->config)) continue;  // an invalid config is logged and ignored
      close(c.step);
      open = {c.step, 0, r->config};
    }
  }
  close(steps);
  return spans;
}

double governed_share(const std::vector<config_span>& history, const policy_config& config) {
  std::uint64_t total = 0, mine = 0;
  for (const config_span& s : history) {
    total += s.end_step - s.first_step;
    if (s.config == config) mine += s.end_step - s.first_step;
  }
  return total ? static_cast<double>(mine) / static_cast<double>(total) : 0.0;
}

}  // namespace kvscope
