#include "outcome/latency_series.hpp"

#include "outcome/request_miss.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace kvscope {

double latency_window_for(double duration_s, std::size_t max_windows) noexcept {
  assert(max_windows > 0);
  const double windows = static_cast<double>(max_windows);
  // No width fits an infinite or NaN duration: without this the loop below would never end.
  if (!(std::isfinite(duration_s) && duration_s >= 0)) return 1e-3;
  for (double decade = 1e-3;; decade *= 10) {
    for (const double step : {1.0, 2.0, 5.0}) {
      // Windows start at 0, so a finish exactly at duration_s opens one more. Ends: the width
      // grows tenfold a decade and duration_s is finite.
      const double width = step * decade;
      if (std::floor(duration_s / width) + 1 <= windows) return width;
    }
  }
}

static_assert(miss_cause_count < 256, "a sample keeps its cause in one byte");

void latency_series_builder::add(const request_record& r) {
  const std::optional<miss_cause> cause = miss_cause_of(slo_, r);
  if (r.outcome != request_outcome::finished) {
    if (cause) rejected_s_.push_back(r.finish_s);
    return;
  }
  const auto code = cause ? static_cast<std::uint8_t>(*cause) : met;
  samples_.push_back({r.finish_s, r.ttft_s(), r.tpot_s(), !cause, code});
  last_finish_s_ = std::max(last_finish_s_, r.finish_s);
}

latency_series latency_series_builder::build(double window_s) const {
  assert(window_s > 0);
  latency_series out;
  out.window_s = window_s;
  out.finished = samples_.size();
  if (samples_.empty() && rejected_s_.empty()) {
    std::vector<double> none;
    out.ttft_s = out.tpot_s = exact_stats(none);  // NaN: nothing measured
    return out;
  }
  const auto window_of = [window_s](double t) {
    return static_cast<std::size_t>(std::max(0.0, std::floor(t / window_s)));
  };
  double last_s = last_finish_s_;
  for (const double t : rejected_s_) last_s = std::max(last_s, t);
  // Samples by window (a counting sort), then each window's values in one pass.
  std::vector<std::size_t> first(window_of(last_s) + 2, 0);
  for (const sample& s : samples_) ++first[window_of(s.finish_s) + 1];
  for (std::size_t w = 1; w < first.size(); ++w) first[w] += first[w - 1];
  std::vector<std::size_t> order(samples_.size());
  std::vector<std::size_t> next(first.begin(), first.end() - 1);
  for (std::size_t i = 0; i < samples_.size(); ++i) order[next[window_of(samples_[i].finish_s)]++] = i;

  std::vector<double> all_ttft, all_tpot, ttft, tpot;
  all_ttft.reserve(samples_.size());
  all_tpot.reserve(samples_.size());
  out.windows.resize(first.size() - 1);
  for (std::size_t w = 0; w < out.windows.size(); ++w) {
    latency_window& win = out.windows[w];
    win.start_s = static_cast<double>(w) * window_s;
    ttft.clear();
    tpot.clear();
    for (std::size_t k = first[w]; k < first[w + 1]; ++k) {
      const sample& s = samples_[order[k]];
      ttft.push_back(s.ttft_s);
      tpot.push_back(s.tpot_s);
      win.good += s.good;
      if (s.cause != met) ++win.missed[s.cause];
    }
    win.finished = first[w + 1] - first[w];
    out.good += win.good;
    win.goodput_rps = static_cast<double>(win.good) / window_s;
    all_ttft.insert(all_ttft.end(), ttft.begin(), ttft.end());
    all_tpot.insert(all_tpot.end(), tpot.begin(), tpot.end());
    win.ttft_s = exact_stats(ttft);
    win.tpot_s = exact_stats(tpot);
  }
  for (const double t : rejected_s_) ++out.windows[window_of(t)].missed[static_cast<std::size_t>(miss_cause::rejected)];
  for (const latency_window& win : out.windows) {
    for (std::size_t c = 0; c < miss_cause_count; ++c) out.missed[c] += win.missed[c];
  }
  out.ttft_s = exact_stats(all_ttft);
  out.tpot_s = exact_stats(all_tpot);
  return out;
}

}  // namespace kvscope
