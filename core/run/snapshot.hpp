#pragma once
// An immutable picture of the engine that the runner publishes for readers (the GUI) without
// ever waiting on them. Readers hold a shared_ptr<const engine_snapshot> as long as they like.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/pool_view.hpp"
#include "engine/step_metrics.hpp"
#include "outcome/request_record.hpp"
#include "run/commands.hpp"
#include "policy/policy_config.hpp"
#include "policy/policy_controller.hpp"
#include "sched/scheduler.hpp"

namespace kvscope {

struct run_summary;  // run/run_summary.hpp

struct engine_snapshot {
  std::uint64_t step = 0;
  double sim_time_s = 0;
  bool finished = false;                  // the load is exhausted and every request is done
  std::vector<step_metrics> new_metrics;  // steps since the previous snapshot, oldest first
  // The last steps (up to recent_metrics_capacity) in chunks shared between snapshots, so a
  // reader that skipped snapshots still gets every step: see metrics_since().
  std::vector<std::shared_ptr<const std::vector<step_metrics>>> recent_chunks;
  std::uint64_t generation = 0;  // +1 on every reset: step numbers start again at 0
  step_metrics latest;                    // the most recent step (also valid with no new steps)
  std::shared_ptr<const pool_view> pool;  // never null in what a runner publishes
  policy_config policy;
  policy_state policy_now;
  std::uint64_t budget_bytes = 0;
  std::vector<logged_command> command_log;  // every command applied so far, oldest first
  bool playing = false;                     // the runner is stepping on its own
  // The run so far as summarize() reports it (totals, peaks, measured quality), filled by the
  // runner and the tour; its wall_seconds is the time the engine spent stepping.
  std::shared_ptr<const run_summary> summary;
  // Requests the engine refused because they can never fit (engine::rejected()): how many,
  // and the newest of them with their reasons (at most recent_rejections_capacity, oldest
  // first), so a front end can say why without copying the whole list on every publish.
  std::uint64_t rejected_total = 0;
  std::array<std::uint64_t, rejection_cause_count> rejected_by_cause{};  // rejected_total by cause
  std::vector<rejected_request> recent_rejections;
  // Every request the engine completed (finished or rejected) since it was made, in completion
  // order, in chunks shared between snapshots (few of them: the runner merges small ones), so
  // a reader that skipped snapshots still gets each record: see requests_since().
  std::vector<std::shared_ptr<const std::vector<request_record>>> request_chunks;
  std::uint64_t requests_completed = 0;  // records in request_chunks
  // Why the runner stopped the engine (a load that failed while streaming, an engine that
  // could not be rebuilt on reset); empty while all is well.
  std::string error;

  // Every step >= `step` still held in recent_chunks, oldest first.
  std::vector<step_metrics> metrics_since(std::uint64_t from_step) const {
    std::vector<step_metrics> out;
    for (const auto& chunk : recent_chunks) {
      if (chunk->empty() || chunk->back().step < from_step) continue;
      for (const auto& m : *chunk) {
        if (m.step >= from_step) out.push_back(m);
      }
    }
    return out;
  }

  // The records from the `from`-th completed request on (0: all of them), oldest first.
  std::vector<request_record> requests_since(std::uint64_t from) const {
    std::vector<request_record> out;
    std::uint64_t first = 0;  // index of the chunk's first record
    for (const auto& chunk : request_chunks) {
      const std::uint64_t end = first + chunk->size();
      if (end > from) {
        const auto skip = static_cast<std::ptrdiff_t>(from > first ? from - first : 0);
        out.insert(out.end(), chunk->begin() + skip, chunk->end());
      }
      first = end;
    }
    return out;
  }
};

inline constexpr std::size_t recent_metrics_capacity = 1 << 16;
inline constexpr std::size_t recent_rejections_capacity = 8;

class engine;  // engine/engine.hpp

// Sets what a snapshot reads straight off the engine — step, time, finished, latest metrics,
// policy, budget and rejections — for the runner and the tour alike. The pool view, the step and
// request chunks, the summary and the command log are the publisher's to fill.
void fill_from_engine(engine_snapshot& s, const engine& e);

}  // namespace kvscope
