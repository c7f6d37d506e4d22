#pragma once
// Live control of a running engine: commands go in through a queue, snapshots come out.
// Commands are applied at step boundaries and logged with their step index, so a tuning
// session replays exactly (docs/ARCHITECTURE.md, "The engine").
#include <cstdint>
#include <memory>
#include <variant>

#include "policy/policy_config.hpp"

namespace kvscope {

struct play_command {};
struct pause_command {};
struct step_command {
  std::uint32_t steps = 1;  // run this many steps, then pause
};
struct speed_command {
  double steps_per_second = 0;  // 0 = as fast as the machine goes
};
struct reconfigure_command {
  policy_config config;  // validated by the sender; an invalid one is logged and ignored
};
struct reset_command {};

using runner_command = std::variant<play_command, pause_command, step_command, speed_command,
                                    reconfigure_command, reset_command>;

struct logged_command {
  std::uint64_t step = 0;  // applied before this step ran
  runner_command command;
};

struct engine_snapshot;  // run/snapshot.hpp

// What a front end needs from a running engine. Both calls return at once: a front end never
// waits on the engine, and the engine never waits on a front end.
class engine_feed {
 public:
  virtual ~engine_feed() = default;
  // Queues a command for the next step boundary.
  virtual void post(runner_command command) = 0;
  // The most recent snapshot (never null once the feed has started).
  virtual std::shared_ptr<const engine_snapshot> latest() const = 0;
};

}  // namespace kvscope
