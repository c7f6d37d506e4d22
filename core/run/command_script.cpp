#include "run/command_script.hpp"

#include <variant>

namespace kvscope {

void apply_to_engine(const runner_command& command, std::unique_ptr<engine>& e,
                     const engine_maker& remake) {
  if (const auto* r = std::get_if<reconfigure_command>(&command)) {
    (void)e->reconfigure(r->config);  // an invalid config is logged and changes nothing
  } else if (std::holds_alternative<reset_command>(command)) {
    e = remake();
  }
}

}  // namespace kvscope
