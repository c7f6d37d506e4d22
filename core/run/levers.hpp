#pragma once
// From why requests missed their SLOs to what to change (docs/why-requests-miss.md): the options
// that act on the cause that explains most misses, with a `tune` search space to try, and a plain
// word when the KV cache is not what binds.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/engine_options.hpp"
#include "outcome/slo_misses.hpp"

namespace kvscope {

// Whether the load outran the server: the GPU time its steps took against the span its requests
// arrived over, and the backlog left when the last one arrived. Sustained overload, not a burst:
// the server was busy nearly all the while requests arrived, a tenth of the load was still
// waiting at the end of it, and draining that took a tenth of the span more.
struct server_demand {
  double busy_s = 0;                 // step time over the whole run
  double arrival_span_s = 0;         // last arrival - first arrival
  double busy_while_arriving_s = 0;  // step time before the last arrival
  std::uint64_t waiting_at_last_arrival = 0;  // not yet admitted when the last request arrived
  std::uint64_t requests = 0;                 // that arrived in all
  // busy_s / arrival_span_s: above 1, steps went on after the last arrival; NaN without a span.
  // A server that never idles (decode steps at any load) is near 1 without being overloaded.
  double ratio() const noexcept;
  // waiting_at_last_arrival / requests (0 without requests).
  double backlog_share() const noexcept;
  // Busy >= 95 % of the span while requests arrived, ratio() >= 1.1, and a backlog of at least
  // 10 requests and 10 % of the load at the last arrival.
  bool overloaded() const noexcept;
};

struct lever_advice {
  miss_cause cause = miss_cause::own_work;  // the cause that explains most misses
  // The misses come from a load this server cannot keep up with (server_demand::overloaded), not
  // from how it schedules: `cause` is then the mechanism most of them waited in.
  bool overloaded = false;
  std::string advice;  // which options act on it and how, one or two sentences
  std::string space;   // a search space for tune/sweep ("max-num-batched-tokens=1024,2048"); may be empty
  // Said when the misses owe nothing to the KV cache filling ("" otherwise).
  std::string kv_note;
};

// What to change, given the misses of a run with `options`; peak_usage is the run's highest
// kv_cache_usage_perc. Empty advice when nothing missed.
lever_advice advise(const slo_miss_tally& misses, const engine_options& options, double peak_usage,
                    const server_demand& demand = {});

// "overloaded" when the advice is about an overload, else the main cause's key_of.
std::string_view main_cause_key(const lever_advice& advice) noexcept;

}  // namespace kvscope
