// Bodies of the document targets: a session file, a Hugging Face config.json, a vLLM benchmark
// result, a tour script, a per-request CSV and a sweep CSV (both read by the GUI's views), a GPU
// file and a calibration. Each input gives a value or an error naming the source, never an
// exception or a crash; what parses is used as the program would use it.
#include <array>
#include <cmath>
#include <string>

#include "fuzz_bodies.hpp"
#include "io/session_file.hpp"
#include "load/load_error.hpp"
#include "load/vllm_bench.hpp"
#include "memory/block_pool.hpp"
#include "memory/model_shape.hpp"
#include "model/builtin_models.hpp"
#include "model/calibration.hpp"
#include "model/gpu_spec.hpp"
#include "model/kv_budget.hpp"
#include "model/model_config.hpp"
#include "model/roofline.hpp"
#include "outcome/requests_csv.hpp"
#include "sweep/sweep_data.hpp"
#include "tour/tour_script.hpp"

namespace kvscope::fuzz {
namespace {

using detail::broken;

template <class T>
void check_error_names_source(const expected<T, std::string>& r, const char* what) {
  if (!r && r.error().rfind("fuzz", 0) != 0) broken(what);
}

// A session that reads writes back to text that reads back to the same text.
void read_session_text(std::string_view text) {
  const auto s = session_from_json(text, "fuzz");
  check_error_names_source(s, "session error does not name the source");
  if (!s) return;
  const std::string written = session_to_json(*s);
  const auto back = session_from_json(written, "written");
  if (!back) broken("written session does not read back");
  if (session_to_json(*back) != written) broken("written session reads back different");
}

// A config that parses has counts that fit (the functions' precondition).
// Every size kvscope derives from a model's KV shape: no count may wrap or vanish.
void check_sizes(const model_config& m) {
  const model_shape shape = shape_of(m);
  if (shape.layers != m.num_hidden_layers || shape.kv_heads != m.num_key_value_heads ||
      shape.head_dim != m.head_dim) {
    broken("the KV shape does not hold the config's counts");
  }
  if (shape.values_per_token() != kv_values_per_token(m)) broken("KV values per token wrap");
  for (const std::uint64_t block_size : {1u, 16u, 65535u}) {
    if (shape.frame_bytes(block_size) / block_size != kv_bytes_per_token(m)) broken("a frame's size wraps");
  }
  block_pool_config pool;
  pool.shape = shape;
  pool.mode = payload_mode::accounting;
  pool.budget_bytes = std::uint64_t{64} << 20;
  if (!block_pool::validate(pool)) {
    const block_pool built(pool);  // accounting mode: tables only, at most 64 MiB / 2 KiB frames
    if (built.frame_count() == 0) broken("a valid pool has no frame");
  }
}

// Step times of typical steps (one decode, a long prefill, a large batch, nothing) at 1, 2 and
// 8 GPUs, and the auto budget: finite, never negative, a step with tokens never free, and a
// budget no larger than the GPUs' memory.
void check_times(const model_config& m, const gpu_spec& g) {
  std::array<step_work, 4> works{};
  works[0].tokens = works[0].sequences = 1;
  works[0].context_token_reads = 1000;
  works[0].kv_bytes_read_by_level[0] = 1000 * kv_bytes_per_token(m);
  works[1].tokens = 8192;
  works[1].sequences = 1;
  works[1].context_token_reads = 8192ull * 8193 / 2;
  works[2].tokens = works[2].sequences = 256;
  works[2].context_token_reads = 256ull * 4096;
  works[2].kv_token_reads_by_level = {256ull * 1024, 256ull * 1024, 256ull * 1024, 256ull * 1024};
  for (const std::uint32_t tp : {1u, 2u, 8u}) {
    const auto timing = make_roofline({m, g, tp, default_dequant_flops_per_value});
    if (timing) {
      for (const step_work& w : works) {
        const double s = timing->estimate(w).seconds;
        if (!std::isfinite(s) || s < 0) broken("a step time is not a finite, non-negative number");
        if (w.tokens > 0 && !(s > 0)) broken("a step with tokens takes no time");
      }
    }
    budget_options b;
    b.tp = tp;
    const auto budget = budget_auto(m, g, b);
    if (budget && budget->per_gpu_bytes > g.memory_bytes) broken("the auto budget exceeds the GPU's memory");
  }
}

void read_model_config_text(std::string_view text) {
  const auto c = parse_model_config(text, "fuzz.json");
  check_error_names_source(c, "model config error does not name the source");
  if (!c) return;
  (void)parameter_count(*c);
  (void)active_parameter_count(*c);
  (void)weight_bytes(*c);
  check_sizes(*c);
  for (const auto name : {"h100", "rtx4090"}) check_times(*c, *builtin_gpu(name));
}

void read_gpu_text(std::string_view text) {
  const auto g = parse_gpu_spec(text, "fuzz.json");
  check_error_names_source(g, "GPU error does not name the source");
  if (!g) return;
  if (check_gpu_spec(*g)) broken("a GPU file that parses fails check_gpu_spec");
  for (const auto name : {"tiny", "llama3-8b", "llama3-70b"}) check_times(*builtin_model(name), *g);
}

// A calibration applied as --calibration applies it, over the GPU it names or an H100.
void read_calibration_text(std::string_view text) {
  const auto c = parse_calibration(text, "fuzz.json");
  check_error_names_source(c, "calibration error does not name the source");
  if (!c) return;
  auto gpu = builtin_gpu(c->gpu);
  gpu_spec g = gpu ? *gpu : *builtin_gpu("h100");
  g.compute_efficiency = c->compute_efficiency;
  g.memory_efficiency = c->memory_efficiency;
  g.step_overhead_s = c->step_overhead_s;
  g.sequence_overhead_s = c->sequence_overhead_s;
  if (check_gpu_spec(g)) broken("a calibration that parses makes a GPU check_gpu_spec refuses");
  const auto rewritten = parse_calibration(calibration_to_json(*c), "written");
  if (!rewritten) broken("a written calibration does not read back");
  check_times(*builtin_model("llama3-8b"), g);
}

// A result that parses becomes a load (as `--load bench:FILE` makes it) that reads to the end.
void read_vllm_bench_text(std::string_view text) {
  const auto r = parse_vllm_bench(text, "fuzz");
  check_error_names_source(r, "bench error does not name the source");
  if (!r) return;
  try {
    auto load = make_vllm_bench_load(*r, 1);
    request req;
    while (load->next(req)) {
    }
  } catch (const load_error&) {
    // refusing a load whose lengths cannot be is a valid answer
  }
}

void read_tour_text(std::string_view text) {
  check_error_names_source(parse_tour_script(text, "fuzz"), "tour error does not name the source");
}

// Rows that read write back to text that reads back to the same rows and the same text.
void read_requests_csv_text(std::string_view text) {
  const auto rows = parse_requests_csv(text, "fuzz");
  check_error_names_source(rows, "requests CSV error does not name the source");
  if (!rows) return;
  const auto written = [](const std::vector<request_record>& records) {
    std::string out(requests_csv_header());
    out += '\n';
    for (const request_record& r : records) append_requests_csv_row(out, r);
    return out;
  };
  const std::string once = written(*rows);
  const auto back = parse_requests_csv(once, "written");
  if (!back) broken("written requests CSV does not read back");
  if (back->size() != rows->size()) broken("written requests CSV reads back another row count");
  if (written(*back) != once) broken("written requests CSV reads back different");
}

// A sweep that reads has a metric per metric column in every row, and each column it names.
void read_sweep_csv_text(std::string_view text) {
  const auto data = parse_sweep_data(text, "fuzz");
  check_error_names_source(data, "sweep CSV error does not name the source");
  if (!data) return;
  for (const sweep_data_row& row : data->rows) {
    if (row.metrics.size() != data->metric_columns.size()) broken("sweep row without a value per metric");
  }
  for (std::size_t m = 0; m < data->metric_columns.size(); ++m) {
    if (data->metric(data->metric_columns[m]) != m) broken("sweep metric column not found by its name");
    if (data->column(m).size() != data->rows.size()) broken("sweep column without a value per row");
  }
}

}  // namespace

void run_document(document d, const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  switch (d) {
    case document::session: return read_session_text(text);
    case document::model_config: return read_model_config_text(text);
    case document::vllm_bench: return read_vllm_bench_text(text);
    case document::tour: return read_tour_text(text);
    case document::requests_csv: return read_requests_csv_text(text);
    case document::sweep_csv: return read_sweep_csv_text(text);
    case document::gpu: return read_gpu_text(text);
    case document::calibration: return read_calibration_text(text);
  }
}

}  // namespace kvscope::fuzz
