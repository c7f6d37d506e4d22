#pragma once
// From why requests missed their SLOs to what to change (docs/why-requests-miss.md): the options
// that act on the cause that explains most misses, with a `tune` search space to try, and a plain
// word when the KV cache is not what binds.
#include <string>

#include "engine/engine_options.hpp"
#include "outcome/slo_misses.hpp"

namespace kvscope {

struct lever_advice {
  miss_cause cause = miss_cause::own_work;  // the cause that explains most misses
  std::string advice;  // which options act on it and how, one or two sentences
  std::string space;   // a search space for tune/sweep ("max-num-batched-tokens=1024,2048"); may be empty
  // Said when the misses owe nothing to the KV cache filling ("" otherwise).
  std::string kv_note;
};

// What to change, given the misses of a run with `options`; peak_usage is the run's highest
// kv_cache_usage_perc. Empty advice when nothing missed.
lever_advice advise(const slo_miss_tally& misses, const engine_options& options, double peak_usage);

}  // namespace kvscope
