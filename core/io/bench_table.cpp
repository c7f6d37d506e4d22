#include "io/bench_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

namespace kvscope {
namespace {

// vLLM prints "{:<40} {:<10.2f}" lines and centred section rules 50 wide.
void line(std::string& out, const char* name, double v, bool whole = false) {
  char buf[96];
  if (whole) {
    std::snprintf(buf, sizeof buf, "%-40s %-10.0f\n", name, v);
  } else {
    std::snprintf(buf, sizeof buf, "%-40s %-10.2f\n", name, v);
  }
  out += buf;
}

void rule(std::string& out, const std::string& title, char c) {
  const std::size_t width = 50;
  const std::size_t pad = title.size() >= width ? 0 : width - title.size();
  out += std::string(pad / 2, c) + title + std::string(pad - pad / 2, c) + "\n";
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * p / 100;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

void fill(double (&out)[3], const vllm_bench_result& m, const std::string& name, const std::vector<double>& samples_ms) {
  const auto get = [&](const std::string& key) {
    const auto it = m.summary_ms.find(key);
    return it == m.summary_ms.end() ? NAN : it->second;
  };
  out[0] = get("mean_" + name + "_ms");
  out[1] = get("median_" + name + "_ms");
  out[2] = get("p99_" + name + "_ms");
  if (!samples_ms.empty()) {
    if (std::isnan(out[0])) out[0] = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(samples_ms.size());
    if (std::isnan(out[1])) out[1] = percentile(samples_ms, 50);
    if (std::isnan(out[2])) out[2] = percentile(samples_ms, 99);
  }
}

}  // namespace

bench_figures figures_of(const run_summary& s, std::optional<std::uint32_t> max_concurrency, double request_rate) {
  bench_figures f;
  const auto& v = s.service;
  f.completed = v.finished;
  f.max_concurrency = max_concurrency;
  f.request_rate = request_rate;
  f.duration_s = s.sim_seconds;
  f.total_input_tokens = v.prompt_tokens;
  f.total_output_tokens = v.output_tokens;
  f.request_throughput = v.requests_per_s;
  f.output_throughput = v.output_tokens_per_s;
  f.total_token_throughput = s.sim_seconds > 0 ? static_cast<double>(v.prompt_tokens + v.output_tokens) / s.sim_seconds : 0;
  const auto ms = [](const latency_stats& l, double (&out)[3]) {
    out[0] = 1e3 * l.mean;
    out[1] = 1e3 * l.p50;
    out[2] = 1e3 * l.p99;
  };
  ms(v.latency.ttft_s, f.ttft);
  ms(v.latency.tpot_s, f.tpot);
  ms(v.latency.itl_s, f.itl);
  ms(v.latency.e2e_s, f.e2el);
  return f;
}

bench_figures figures_of(const vllm_bench_result& m) {
  bench_figures f;
  f.completed = m.completed;
  f.max_concurrency = m.max_concurrency;
  f.request_rate = m.request_rate;
  f.duration_s = m.duration_s;
  const auto sum = [](const std::vector<std::uint32_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
  };
  f.total_input_tokens = m.total_input_tokens ? m.total_input_tokens : sum(m.input_lens);
  f.total_output_tokens = m.total_output_tokens ? m.total_output_tokens : sum(m.output_lens);
  f.request_throughput = m.request_throughput ? m.request_throughput : static_cast<double>(m.completed) / m.duration_s;
  f.output_throughput = m.output_throughput ? m.output_throughput : static_cast<double>(f.total_output_tokens) / m.duration_s;
  f.total_token_throughput = static_cast<double>(f.total_input_tokens + f.total_output_tokens) / m.duration_s;
  std::vector<double> ttft, tpot, itl;
  for (double t : m.ttfts_s) ttft.push_back(1e3 * t);
  for (const auto& gaps : m.itls_s) {
    for (double g : gaps) itl.push_back(1e3 * g);
  }
  for (double t : tpots_from_itls(m)) tpot.push_back(1e3 * t);
  fill(f.ttft, m, "ttft", ttft);
  fill(f.tpot, m, "tpot", tpot);
  fill(f.itl, m, "itl", itl);
  fill(f.e2el, m, "e2el", {});
  return f;
}

std::string bench_table(const bench_figures& f, const std::string& title) {
  std::string out;
  rule(out, " " + title + " ", '=');
  line(out, "Successful requests:", static_cast<double>(f.completed), true);
  if (f.max_concurrency) line(out, "Maximum request concurrency:", *f.max_concurrency, true);
  if (std::isfinite(f.request_rate)) line(out, "Request rate configured (RPS):", f.request_rate);
  line(out, "Benchmark duration (s):", f.duration_s);
  line(out, "Total input tokens:", static_cast<double>(f.total_input_tokens), true);
  line(out, "Total generated tokens:", static_cast<double>(f.total_output_tokens), true);
  line(out, "Request throughput (req/s):", f.request_throughput);
  line(out, "Output token throughput (tok/s):", f.output_throughput);
  line(out, "Total Token throughput (tok/s):", f.total_token_throughput);
  const auto section = [&](const char* heading, const char* tag, const double (&v)[3]) {
    rule(out, heading, '-');
    const std::string t(tag);
    line(out, ("Mean " + t + " (ms):").c_str(), v[0]);
    line(out, ("Median " + t + " (ms):").c_str(), v[1]);
    line(out, ("P99 " + t + " (ms):").c_str(), v[2]);
  };
  section("Time to First Token", "TTFT", f.ttft);
  section("Time per Output Token (excl. 1st token)", "TPOT", f.tpot);
  section("Inter-token Latency", "ITL", f.itl);
  section("End-to-end Latency", "E2EL", f.e2el);
  out += std::string(50, '=') + "\n";
  return out;
}

}  // namespace kvscope
