#include "run/snapshot.hpp"

#include <algorithm>

#include "engine/engine.hpp"

namespace kvscope {

void fill_from_engine(engine_snapshot& s, const engine& e) {
  s.step = e.steps_done();
  s.sim_time_s = e.sim_time_s();
  s.finished = e.finished();
  s.latest = e.last_metrics();
  s.policy = e.policy().config();
  s.policy_now = e.policy().state();
  s.budget_bytes = e.cache().pool().budget_bytes();
  const auto& rejected = e.rejected();
  s.rejected_total = rejected.size();
  s.rejected_by_cause = e.rejected_by_cause();
  s.recent_rejections.assign(
      rejected.end() - static_cast<std::ptrdiff_t>(std::min(rejected.size(), recent_rejections_capacity)),
      rejected.end());
}

}  // namespace kvscope
