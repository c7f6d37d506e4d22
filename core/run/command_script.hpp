#pragma once
// Applying a command log to an engine at step boundaries: the one rule replay, the run service
// and the live runner share. A command applies before the step it names; after a reset, steps
// count from 0 again; once the load has ended, commands still due apply in order.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>

#include "engine/engine.hpp"
#include "run/commands.hpp"

namespace kvscope {

using engine_maker = std::function<std::unique_ptr<engine>()>;

// Applies one command's effect on the engine: reconfigure and reset (play, pause, step and speed
// only matter to a live runner). `remake` builds the fresh engine a reset needs; what it throws
// propagates and leaves `e` unchanged.
void apply_to_engine(const runner_command& command, std::unique_ptr<engine>& e,
                     const engine_maker& remake);

class command_script {
 public:
  explicit command_script(std::span<const logged_command> log) : log_(log) {}

  // Applies every command due before the engine's next step; `apply` sees each one. Commands
  // past the end of the load (the engine finished, or `stopped`) are all due. Takes the owner,
  // not the engine: a reset replaces the engine, and the next command is due on the new one.
  template <class Apply>
  bool apply_due(const std::unique_ptr<engine>& e, bool stopped, Apply&& apply) {
    bool any = false;
    while (next_ < log_.size() &&
           (log_[next_].step == e->steps_done() || e->finished() || stopped)) {
      apply(log_[next_++].command);
      any = true;
    }
    return any;
  }
  bool done() const noexcept { return next_ == log_.size(); }
  // Drops what is left (a front end took over with a reset of its own).
  void abandon() noexcept { next_ = log_.size(); }

 private:
  std::span<const logged_command> log_;
  std::size_t next_ = 0;
};

}  // namespace kvscope
