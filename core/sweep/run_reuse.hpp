#pragma once
// Runs that cannot differ: when another config's run would repeat a finished one step for step,
// sweeps, tune and capacity probes take the finished one's result instead of running it again.
// Only equivalences proved from the code are used (docs/sweeps.md, "Runs that cannot differ"):
//
// - The same run twice: the engine is deterministic.
// - A policy field its family never reads: the ewma family reads none of the other families'
//   parameters; static, age and sinks_recent have no controller, so thresholds, hysteresis,
//   alpha and the level range do nothing (static also ignores the age and sink parameters, ...);
//   an ewma range of one level (min_level == max_level, as fp16_only) clamps every level to it.
// - ewma below its thresholds: the engine takes only the level from the controller, the level
//   starts at min_level, and the EWMA is a convex combination of the pressures observed, so it
//   stays at or below their peak for any alpha. A run that kept fp16 (min_level fp16, no
//   transition) is repeated by every config of the same run whose q8 threshold lies above that
//   peak, whatever its q4 threshold, hysteresis, alpha and max_level. With min_level fp16 and
//   no transition nothing migrates, so the summary's peak_usage is exactly the peak observed.
//
// Which finished run a config reuses must not depend on timing: only a run of an earlier config
// (in plan order) is offered to a later one, and count_repeats() counts from the results alone.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "run/run_description.hpp"
#include "run/run_summary.hpp"

namespace kvscope {

// Why a reused run is the run it stands for, for people's notes.
inline constexpr std::string_view reuse_reason =
    "their EWMA never reached their q8 threshold, or they differ only in policy fields their family does not read";

// What of a finished run decides which other runs would repeat it.
struct reuse_facts {
  double peak_usage = 0;                 // the peak pressure the controller observed (see above)
  std::uint64_t level_transitions = 0;
  std::uint64_t steps = 0;               // observations the EWMA took (one per step)
};

reuse_facts facts_of(const run_summary& summary);

// One engine run a score took (a capacity search's probes, in order): its rate factor and its
// facts; none for a run that stopped overloaded (it can repeat no run, and none repeats it).
struct recorded_run {
  double rate_factor = 1;
  std::optional<reuse_facts> facts;
};

// True when `candidate` would run step for step as `donor` did, given the donor's facts. A run
// with a command log never qualifies (a reconfigure would change the policy mid-run).
bool repeats_run(const run_description& donor, const reuse_facts& facts, const run_description& candidate);

// A run as repeats_run compares it, made once per run rather than once per comparison: the run
// without its policy, and the policy's fields its family reads.
struct reuse_key {
  run_description run_class;
  policy_config policy;
};
reuse_key key_of(const run_description& run);
bool repeats_key(const reuse_key& donor, const reuse_facts& facts, const reuse_key& candidate);

// How many runs of `runs` (in plan order, each with its facts) repeat an earlier one. The same
// whatever ran and what was reused, since a reused run's facts are its donor's.
std::size_t count_repeats(const std::vector<std::pair<run_description, reuse_facts>>& runs);

// Finished runs offered to later ones, by their place in plan order; thread-safe. `Result` is
// what a caller keeps of a run (a CSV row's metric cells, a summary, a capacity probe).
template <class Result>
class reuse_cache {
 public:
  explicit reuse_cache(bool enabled = true) : enabled_(enabled) {}

  bool enabled() const noexcept { return enabled_; }

  // Offers a finished run (not one that was cut short by the user or failed).
  void offer(std::size_t order, const run_description& run, const reuse_facts& facts, Result result) {
    if (!enabled_) return;
    const std::lock_guard lock(mutex_);
    done_.emplace(order, entry{key_of(run), facts, std::move(result)});
  }

  // The result of the earliest offered run before `order` that `run` would repeat.
  std::optional<Result> find(std::size_t order, const run_description& run) const {
    if (!enabled_) return std::nullopt;
    const reuse_key key = key_of(run);
    const std::lock_guard lock(mutex_);
    for (auto it = done_.begin(); it != done_.end() && it->first < order; ++it) {
      if (repeats_key(it->second.key, it->second.facts, key)) return it->second.result;
    }
    return std::nullopt;
  }

 private:
  struct entry {
    reuse_key key;
    reuse_facts facts;
    Result result;
  };
  bool enabled_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, entry> done_;
};

}  // namespace kvscope
