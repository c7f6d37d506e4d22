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
  std::map<std::string, double> summary_ms;     // mean_ttft_ms, median_tpot_ms, p99_e2el_ms, ...
  double request_throughput = 0;                // as written; 0 when absent
  double output_throughput = 0;
};

// Parses the text; errors name the source and the field ("r.json: field 'output_lens': missing").
// Needs completed, duration, input_lens and output_lens (one per completed request), and
// max_concurrency or request_rate; the rest is optional.
expected<vllm_bench_result, std::string> parse_vllm_bench(std::string_view text, std::string_view source);
expected<vllm_bench_result, std::string> read_vllm_bench(const std::filesystem::path& path);

// The requests the benchmark sent, in order, with arrival times from its rate and burstiness
// (seeded) or all at 0 for a closed loop; client_concurrency() is its max_concurrency.
std::unique_ptr<request_source> make_vllm_bench_load(const vllm_bench_result& result, std::uint64_t seed = 0);

}  // namespace kvscope
