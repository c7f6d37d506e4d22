#pragma once
// Exact summary statistics of one sample per request (TTFT, TPOT, e2e, queue time), with the
// percentiles numpy's np.percentile gives by default ("linear", Hyndman & Fan type 7), which is
// what vLLM's benchmark reports. Storing one double per request is cheap; token gaps are not
// stored but sketched (outcome/quantile_sketch.hpp).
#include <span>
#include <vector>

namespace kvscope {

// NaN in every field when there are no samples, so "nothing measured" never reads as 0 s.
struct latency_stats {
  double mean;
  double p50;
  double p90;
  double p99;
  double max;
};

// numpy's linear percentile of sorted, NaN-free samples: index h = (n-1)·p/100 between
// sorted[floor(h)] and the next, interpolated as numpy's _lerp does (from the upper end when the
// fraction is >= 0.5) so the results match it to the last bit. NaN when empty.
// Preconditions: sorted ascending, 0 <= p <= 100.
double linear_percentile(std::span<const double> sorted, double p) noexcept;

// a + t·(b - a), computed as numpy does: from b when t >= 0.5, which keeps t = 1 exact.
double numpy_lerp(double a, double b, double t) noexcept;

// Mean, p50, p90, p99 and max of the samples; NaN entries (undefined for that request) are
// dropped first. Sorts `samples` in place.
latency_stats exact_stats(std::vector<double>& samples);

}  // namespace kvscope
