#pragma once
// The TTFT, TPOT, e2e and queue time of each finished request, for their percentiles. Up to
// exact_limit requests the samples are kept and the percentiles are exact (numpy-linear, as
// vLLM's benchmark reports them, outcome/exact_stats.hpp); the next request folds every sample
// into four quantile sketches (outcome/quantile_sketch.hpp, within 0.5 %) and drops them, so a
// week-long trace runs in the memory of an hour. Where the switch happens depends only on the
// number of finished requests, so results stay deterministic.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "outcome/exact_stats.hpp"
#include "outcome/quantile_sketch.hpp"

namespace kvscope {

struct request_latency_stats {
  latency_stats ttft_s, tpot_s, e2e_s, queue_s;
};

// Mean, p50, p90, p99 and max as the sketch gives them (within its relative error; mean and max
// exact); NaN when it is empty.
latency_stats sketch_stats(const quantile_sketch& s) noexcept;

class latency_samples {
 public:
  // 2 MiB of samples: the Azure conversation hour (19,366 requests) stays exact.
  static constexpr std::size_t default_exact_limit = std::size_t{1} << 16;

  // Precondition: exact_limit >= 1.
  explicit latency_samples(std::size_t exact_limit = default_exact_limit);
  ~latency_samples();
  latency_samples(latency_samples&&) noexcept;
  latency_samples& operator=(latency_samples&&) noexcept;

  // One finished request's samples; NaN where undefined (TPOT of a one-token output).
  void add(double ttft_s, double tpot_s, double e2e_s, double queue_s);

  // Requests added so far.
  std::uint64_t count() const noexcept { return count_; }
  // True while every sample is kept (the statistics are exact).
  bool exact() const noexcept { return sketches_ == nullptr; }

  // Mean, p50, p90, p99 and max of each figure over the defined samples; NaN where none.
  request_latency_stats stats() const;

 private:
  struct sample {
    double ttft_s, tpot_s, e2e_s, queue_s;
  };
  struct sketches;

  // Moves the kept samples into the sketches and frees them.
  void fold_into_sketches();

  std::size_t exact_limit_;
  std::uint64_t count_ = 0;
  std::vector<sample> kept_;
  std::unique_ptr<sketches> sketches_;
};

}  // namespace kvscope
