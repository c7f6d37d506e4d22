#include "run/bench_replay.hpp"

#include <algorithm>

#include "run/run_service.hpp"

namespace kvscope {

bench_replay replay_vllm_bench(const engine_options& options, const vllm_bench_result& m,
                               std::uint32_t max_requests) {
  vllm_bench_result subset = m;
  if (subset.input_lens.size() > max_requests) {
    subset.input_lens.resize(max_requests);
    subset.output_lens.resize(max_requests);
  }
  const std::vector<std::uint32_t> file_outputs = subset.output_lens;
  // An empty generation still ran: its prompt, and the one token (end of sequence) the client
  // never saw as text.
  for (auto& n : subset.output_lens) n = std::max<std::uint32_t>(n, 1);
  std::vector<double> ttft, tpot, e2e;
  run_hooks hooks;
  // The bench load numbers its requests 0, 1, ... in the file's order.
  hooks.on_request = [&](const request_record& r) {
    if (!r.finished() || r.request_id >= file_outputs.size()) return;
    const std::uint32_t file_output = file_outputs[r.request_id];
    const double first = file_output == 0 ? 0.0 : r.ttft_s();
    ttft.push_back(first);
    e2e.push_back(r.e2e_s());
    if (file_output > 1) tpot.push_back((r.e2e_s() - first) / static_cast<double>(file_output - 1));
  };
  bench_replay out;
  auto result = run_to_end(options, make_vllm_bench_load(subset), hooks);
  out.summary = std::move(result.summary);
  if (result.final_engine && !result.final_engine->rejected().empty()) {
    out.first_rejection = result.final_engine->rejected().front().reason;
  }
  out.ttft_s = exact_stats(ttft);
  out.tpot_s = exact_stats(tpot);
  out.e2e_s = exact_stats(e2e);
  return out;
}

}  // namespace kvscope
