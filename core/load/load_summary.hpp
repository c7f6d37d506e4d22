#pragma once
// Totals and exact length percentiles of a load, in bounded memory: lengths are counted in exact
// integer buckets (dense up to 2^20 tokens, a sorted map above), never kept one per request.
#include <cstdint>
#include <map>
#include <vector>

#include "load/request.hpp"

namespace kvscope {

class length_histogram {
 public:
  void add(std::uint32_t length);
  std::uint64_t count() const noexcept { return count_; }
  // Nearest-rank percentile: the smallest length with at least ceil(p/100 · count) lengths <= it.
  // 0 when empty. Precondition: 0 < p <= 100.
  std::uint32_t percentile(double p) const;
  std::uint32_t max() const noexcept { return max_; }

 private:
  static constexpr std::uint32_t dense_limit = 1u << 20;
  std::vector<std::uint64_t> dense_;  // dense_[n]: requests of length n < dense_limit
  std::map<std::uint32_t, std::uint64_t> sparse_;  // longer lengths
  std::uint64_t count_ = 0;
  std::uint32_t max_ = 0;
};

struct load_summary {
  std::uint64_t requests = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t output_tokens = 0;
  double first_arrival_s = 0;
  double last_arrival_s = 0;
  std::uint64_t requests_with_prefix = 0;  // requests carrying prefix hashes
  std::uint64_t prefix_blocks = 0;         // prefix hashes over all requests
  length_histogram prompt_lengths, output_lengths;

  void add(const request& r);
  // Last arrival minus first: the span of the load (0 for a single request).
  double duration_s() const noexcept { return last_arrival_s - first_arrival_s; }
};

}  // namespace kvscope
