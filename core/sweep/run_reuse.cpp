#include "sweep/run_reuse.hpp"

#include <cfloat>

namespace kvscope {
namespace {

// The policy with every field its family never reads set to the default, so that two configs
// that differ only there compare equal. Which fields each family reads: policy/block_level.cpp
// (the blocks' levels), sched/block_manager.cpp (admission) and engine/engine.cpp (only the
// ewma family observes and takes the controller's level; min_level is its start).
policy_config read_fields(const policy_config& p) {
  const policy_config defaults;
  policy_config out = defaults;
  out.family = p.family;
  switch (p.family) {
    case policy_family::ewma:
      out.min_level = p.min_level;
      out.max_level = p.max_level;
      // A range of one level (fp16_only) clamps every target to it: the controller decides nothing.
      if (p.min_level == p.max_level) break;
      out.q8_threshold = p.q8_threshold;
      out.q4_threshold = p.q4_threshold;
      out.hysteresis = p.hysteresis;
      out.ewma_alpha = p.ewma_alpha;
      out.q3_threshold = p.q3_threshold;
      break;
    case policy_family::fixed: out.fixed_level = p.fixed_level; break;
    case policy_family::age:
      out.q8_age_tokens = p.q8_age_tokens;
      out.q4_age_tokens = p.q4_age_tokens;
      out.q3_age_tokens = p.q3_age_tokens;
      break;
    case policy_family::sinks_recent:
      out.fixed_level = p.fixed_level;
      out.sink_tokens = p.sink_tokens;
      out.recent_tokens = p.recent_tokens;
      break;
  }
  return out;
}

// The ewma fields that cannot matter while the controller's EWMA stays below q8_threshold.
policy_config without_controller(policy_config p) {
  const policy_config defaults;
  p.q8_threshold = defaults.q8_threshold;
  p.q4_threshold = defaults.q4_threshold;
  p.hysteresis = defaults.hysteresis;
  p.ewma_alpha = defaults.ewma_alpha;
  p.max_level = defaults.max_level;
  p.q3_threshold = defaults.q3_threshold;
  return p;
}

// Everything of a run but its policy (and the resolved setup, a cache of the options).
bool same_class(const run_description& a, const run_description& b) {
  return a.options == b.options && a.load_spec == b.load_spec && a.format == b.format &&
         a.skip_bad_rows == b.skip_bad_rows && a.steps == b.steps && a.arrival_time_scale == b.arrival_time_scale &&
         a.trace_sha256 == b.trace_sha256 && a.model_sha256 == b.model_sha256 && a.gpu_sha256 == b.gpu_sha256;
}

// An upper bound on the EWMA after `steps` observations of pressures <= `peak`, with rounding:
// each update a·p + (1 − a)·e rounds three times, so e_k <= peak·(1 + u)^(3k) with u = 2^-53,
// which 1 + 4·k·DBL_EPSILON bounds from above for any realistic k (k·DBL_EPSILON <= 2/3).
double ewma_bound(double peak, std::uint64_t steps) {
  return peak * (1.0 + 4.0 * static_cast<double>(steps) * DBL_EPSILON);
}

}  // namespace

reuse_facts facts_of(const run_summary& summary) {
  return {summary.peak_usage, summary.level_transitions, summary.steps};
}

reuse_key key_of(const run_description& run) {
  reuse_key key;
  key.run_class = run;
  key.run_class.options.policy = policy_config{};
  key.run_class.setup.reset();
  key.policy = read_fields(run.options.policy);
  return key;
}

bool repeats_key(const reuse_key& donor, const reuse_facts& facts, const reuse_key& candidate) {
  if (!donor.run_class.commands.empty() || !candidate.run_class.commands.empty()) return false;
  const policy_config& d = donor.policy;
  const policy_config& c = candidate.policy;
  // The policy first: it is what differs between most configs of a sweep, and cheap to compare.
  if (d != c) {
    if (d.family != policy_family::ewma || without_controller(d) != without_controller(c)) return false;
    // Both start at min_level; the donor never left it, and the candidate's EWMA never reaches
    // its q8 threshold, so its raw level is fp16 at every step and its level stays min_level.
    // Only at min_level fp16 is the summary's peak_usage the peak the controller observed.
    if (d.min_level != precision::fp16 || facts.level_transitions != 0 ||
        !(ewma_bound(facts.peak_usage, facts.steps) < static_cast<double>(c.q8_threshold))) {
      return false;
    }
  }
  return same_class(donor.run_class, candidate.run_class);
}

bool repeats_run(const run_description& donor, const reuse_facts& facts, const run_description& candidate) {
  return repeats_key(key_of(donor), facts, key_of(candidate));
}

std::size_t count_repeats(const std::vector<std::pair<run_description, reuse_facts>>& runs) {
  std::vector<reuse_key> keys;
  keys.reserve(runs.size());
  for (const auto& run : runs) keys.push_back(key_of(run.first));
  std::size_t count = 0;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (repeats_key(keys[j], runs[j].second, keys[i])) {
        ++count;
        break;
      }
    }
  }
  return count;
}

}  // namespace kvscope
