#pragma once
// The result files `vllm bench serve --save-result` writes (one JSON object), read as they are
// published, and turned into a load: the same prompt and output lengths, sent the way the
// benchmark sent them (closed loop at max_concurrency, or Poisson/Gamma arrivals at
// request_rate with its burstiness). `--load bench:FILE.json` opens one.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "load/request_source.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct vllm_bench_result {
  std::string source;                           // the file
  std::string model_id;                         // "" when absent
  std::optional<std::uint32_t> max_concurrency;  // null or absent: no limit
  double request_rate = 0;                      // requests/s; +inf: all at once
  double burstiness = 1;                        // gamma shape of the gaps (1: Poisson)
  double duration_s = 0;
  std::uint64_t completed = 0;
  std::uint64_t total_input_tokens = 0;
  std::uint64_t total_output_tokens = 0;
  std::vector<std::uint32_t> input_lens;   // one per completed request
  std::vector<std::uint32_t> output_lens;
  std::vector<double> ttfts_s;                  // empty when absent
  std::vector<std::vector<double>> itls_s;      // per request; empty when absent
  // mean_ttft_ms, median_tpot_ms, p99_e2el_ms, ...: every number named *_ms. Files of vLLM 0.5/0.6
  // (and forks of its benchmark_serving.py) name end-to-end latency mean_/median_/p99_latency_ms;
  // those are also given under the e2el names when the file has none of its own.
  std::map<std::string, double> summary_ms;
  double request_throughput = 0;                // as written; 0 when absent
  double output_throughput = 0;
  // Output tokens after the first per streamed chunk, from itls and output_lens: about 1 when
  // the server streamed every token, about N under multi-step scheduling (num_scheduler_steps
  // N: vLLM 0.6 streamed N tokens at once), when the file's ITL is the gap between chunks.
  // 0 when the file has no itls, or lists that do not add up to its median TPOT (cut short).
  double tokens_per_chunk = 0;
};

// Each request's TPOT (s) as vLLM's benchmark computes it, (latency - ttft) / (output_len - 1)
// for outputs of 2 tokens or more, from the file's itls (whose sum is latency - ttft): not the
// mean gap, which under chunked streaming is the time per chunk.
std::vector<double> tpots_from_itls(const vllm_bench_result& m);

// Parses the text; errors name the source and the field ("r.json: field 'output_lens': missing").
// Needs completed, duration, input_lens and output_lens (one per completed request), and
// max_concurrency or request_rate; the rest is optional.
expected<vllm_bench_result, std::string> parse_vllm_bench(std::string_view text, std::string_view source);
expected<vllm_bench_result, std::string> read_vllm_bench(const std::filesystem::path& path);

// The requests the benchmark sent, in order, with arrival times from its rate and burstiness
// (seeded) or all at 0 for a closed loop; client_concurrency() is its max_concurrency.
std::unique_ptr<request_source> make_vllm_bench_load(const vllm_bench_result& result, std::uint64_t seed = 0);

}  // namespace kvscope
