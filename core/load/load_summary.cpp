#include "load/load_summary.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace kvscope {

void length_histogram::add(std::uint32_t length) {
  ++count_;
  max_ = std::max(max_, length);
  if (length < dense_limit) {
    if (length >= dense_.size()) {
      dense_.resize(std::min<std::size_t>(std::max<std::size_t>(length + 1, dense_.size() * 2), dense_limit));
    }
    ++dense_[length];
  } else {
    ++sparse_[length];
  }
}

std::uint32_t length_histogram::percentile(double p) const {
  assert(p > 0 && p <= 100);
  if (count_ == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t n = 0; n < dense_.size(); ++n) {
    seen += dense_[n];
    if (seen >= rank) return static_cast<std::uint32_t>(n);
  }
  for (const auto& [n, c] : sparse_) {
    seen += c;
    if (seen >= rank) return n;
  }
  return max_;
}

void load_summary::add(const request& r) {
  if (requests == 0) first_arrival_s = r.arrival_s;
  last_arrival_s = r.arrival_s;
  ++requests;
  prompt_tokens += r.prompt_tokens;
  output_tokens += r.output_tokens;
  if (!r.prefix_hashes.empty()) {
    ++requests_with_prefix;
    prefix_blocks += r.prefix_hashes.size();
  }
  prompt_lengths.add(r.prompt_tokens);
  output_lengths.add(r.output_tokens);
}

}  // namespace kvscope
