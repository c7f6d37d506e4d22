#include "gui_test_support.hpp"

namespace kvscope::test {

RecordingFeed::RecordingFeed(std::shared_ptr<const engine_snapshot> s)
    : snapshot(s ? std::move(s) : emptySnapshot(64)) {}

std::shared_ptr<engine_snapshot> emptySnapshot(std::uint32_t frames) {
  auto s = std::make_shared<engine_snapshot>();
  s->frames.block_size = 16;
  s->frames.frames.assign(frames, frame_info{});
  s->budget_bytes = std::uint64_t{frames} << 21;
  s->latest.free_bytes = s->budget_bytes;
  s->new_metrics.push_back(s->latest);
  s->playing = true;
  return s;
}

std::vector<policy_config> reconfigures(const std::vector<runner_command>& log) {
  std::vector<policy_config> out;
  for (const auto& c : log) {
    if (const auto* r = std::get_if<reconfigure_command>(&c)) out.push_back(r->config);
  }
  return out;
}

}  // namespace kvscope::test
