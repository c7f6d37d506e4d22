#pragma once
// Latency over simulated time, for the GUI's latency panel: finished requests grouped by the
// window their finish time falls in (when both TTFT and TPOT are known), each window's exact
// TTFT and TPOT percentiles (exact_stats, as the run summary computes them) and its goodput,
// and the same statistics over every request added. Rejected requests have no latency and
// are not counted there; with an SLO, each window also counts the requests completed in it that
// missed it, rejected ones included, by dominant cause (outcome/request_miss.hpp): the run
// summary's slo_miss_tally, split over time.
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "outcome/exact_stats.hpp"
#include "outcome/request_record.hpp"
#include "outcome/slo.hpp"
#include "outcome/slo_misses.hpp"

namespace kvscope {

struct latency_window {
  double start_s = 0;            // the window is [start_s, start_s + latency_series::window_s)
  std::uint64_t finished = 0;    // requests that finished in it
  std::uint64_t good = 0;        // of them, those meeting every SLO (all of them without one)
  latency_stats ttft_s{}, tpot_s{};  // NaN in every field when no request in it has one
  double goodput_rps = 0;        // good / window_s
  // Requests completed in it (finished or rejected) that missed the SLO, by dominant cause;
  // all zero without an SLO. Finished misses are finished - good.
  std::array<std::uint64_t, miss_cause_count> missed{};

  std::uint64_t missed_total() const noexcept { return std::accumulate(missed.begin(), missed.end(), std::uint64_t{0}); }
};

struct latency_series {
  double window_s = 0;
  // Consecutive windows from t = 0 to the one holding the last finish (or, with an SLO, the last
  // rejection), empty ones included.
  std::vector<latency_window> windows;
  // Over every finished request: the run summary's service.latency.ttft_s and tpot_s.
  latency_stats ttft_s{}, tpot_s{};
  std::uint64_t finished = 0;
  std::uint64_t good = 0;
  std::array<std::uint64_t, miss_cause_count> missed{};  // over every window: the tally's requests

  std::uint64_t missed_total() const noexcept { return std::accumulate(missed.begin(), missed.end(), std::uint64_t{0}); }
};

// A window width for a run `duration_s` long: 1, 2 or 5 times a power of ten, the smallest
// giving at most `max_windows` windows (at least 1 ms). Precondition: max_windows > 0.
double latency_window_for(double duration_s, std::size_t max_windows = 60) noexcept;

// Collects finished requests (four numbers each) as they come, and groups them on demand.
class latency_series_builder {
 public:
  explicit latency_series_builder(slo_spec slo = {}) : slo_(std::move(slo)) {}

  // Adds a finished request; a rejected one counts only as a miss, with an SLO.
  void add(const request_record& r);
  std::size_t finished() const noexcept { return samples_.size(); }
  // The latest finish time added (0 before any).
  double last_finish_s() const noexcept { return last_finish_s_; }
  const slo_spec& slo() const noexcept { return slo_; }
  // The series in windows of `window_s`. Precondition: window_s > 0.
  latency_series build(double window_s) const;

 private:
  // A request that met the SLO has cause met; one byte more than the four numbers, still 32 bytes.
  static constexpr std::uint8_t met = miss_cause_count;
  struct sample {
    double finish_s, ttft_s, tpot_s;
    bool good;
    std::uint8_t cause;
  };
  slo_spec slo_;
  std::vector<sample> samples_;
  std::vector<double> rejected_s_;  // when each rejection happened (only with an SLO)
  double last_finish_s_ = 0;
};

}  // namespace kvscope
