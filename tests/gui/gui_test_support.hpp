#pragma once
// Fakes and builders shared by the GUI tests.
#include <memory>
#include <vector>

#include "engine/commands.hpp"
#include "engine/snapshot.hpp"

namespace kvscope::test {

// An engine_feed that records every command and serves whatever snapshot the test sets.
class RecordingFeed final : public engine_feed {
 public:
  explicit RecordingFeed(std::shared_ptr<const engine_snapshot> snapshot = nullptr);
  void post(runner_command command) override { log.push_back(std::move(command)); }
  std::shared_ptr<const engine_snapshot> latest() const override { return snapshot; }

  std::vector<runner_command> log;
  std::shared_ptr<const engine_snapshot> snapshot;
};

// A snapshot with `frames` free frames, default policy, one step of metrics, playing.
std::shared_ptr<engine_snapshot> emptySnapshot(std::uint32_t frames);

// The reconfigure commands of a log, oldest first.
std::vector<policy_config> reconfigures(const std::vector<runner_command>& log);

}  // namespace kvscope::test
