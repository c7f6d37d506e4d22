#include "run/run_ahead.hpp"

#include <variant>

namespace kvscope {
namespace {

bool acts_on_engine(const runner_command& c) {
  return std::holds_alternative<reconfigure_command>(c) || std::holds_alternative<reset_command>(c);
}

}  // namespace

run_description run_ahead(run_description started, std::span<const logged_command> live_log,
                          bool front_end_changed) {
  std::vector<logged_command> kept;
  if (!front_end_changed) {
    for (const logged_command& c : started.commands) {
      if (acts_on_engine(c.command)) kept.push_back(c);
    }
  } else {
    for (const logged_command& c : live_log) {
      if (std::holds_alternative<reset_command>(c.command)) {
        kept.clear();  // the engine started again from the started options
      } else if (acts_on_engine(c.command)) {
        kept.push_back(c);
      }
    }
  }
  started.commands = std::move(kept);
  started.steps = 0;
  return started;
}

bool reset_replays(const run_description& ahead, const policy_config& config) {
  policy_config in_force = ahead.options.policy;
  for (const logged_command& c : ahead.commands) {
    if (c.step != 0 || std::holds_alternative<reset_command>(c.command)) return false;
    if (const auto* r = std::get_if<reconfigure_command>(&c.command)) in_force = r->config;
  }
  return in_force == config;
}

bool same_commands(std::span<const logged_command> a, std::span<const logged_command> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].step != b[i].step || a[i].command.index() != b[i].command.index()) return false;
    const auto* x = std::get_if<reconfigure_command>(&a[i].command);
    const auto* y = std::get_if<reconfigure_command>(&b[i].command);
    if (x && y && !(x->config == y->config)) return false;
  }
  return true;
}

}  // namespace kvscope
