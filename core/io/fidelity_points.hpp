#pragma once
// The fidelity validation set (tests/data/fidelity/points.csv, its README): published
// measurements of real vLLM servers, one row per point, with how the benchmark sent its requests,
// the server's limits and the figures it published. `kvscope-cli check-fidelity` simulates each
// usable point and compares. Read whole before any simulation, so a bad row stops the check
// first; errors name the file, the line and the column ("points.csv:7: field 'tp': ...").
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "load/vllm_bench.hpp"
#include "run/option_table.hpp"
#include "util/expected.hpp"

namespace kvscope {

// The figures a point may publish, in the order they are printed.
enum class fidelity_figure : std::uint8_t {
  request_throughput, output_throughput, ttft_mean, ttft_p50, tpot_mean, tpot_p50,
  itl_mean, itl_p50, e2e_mean, e2e_p50,
};
inline constexpr std::size_t fidelity_figure_count = 10;

struct fidelity_figure_info {
  fidelity_figure figure;
  std::string_view name;    // in --fail-above and the JSON: "ttft_p50"
  std::string_view column;  // in the points file: "ttft_median_ms"
  std::string_view unit;    // "req/s", "tok/s", "ms"
};
std::span<const fidelity_figure_info> fidelity_figures() noexcept;
// The figure named `name` (its name or its column), or nullptr.
const fidelity_figure_info* find_fidelity_figure(std::string_view name) noexcept;

using fidelity_values = std::array<double, fidelity_figure_count>;  // NaN: none

struct fidelity_point {
  std::size_t line = 0;  // in the points file
  std::string id, source, source_url;
  std::string gpu, model;  // kvscope's names (kvscope_gpu, kvscope_model)
  std::string tp = "1";     // tensor parallelism as the file gives it, for grouping ("1" when blank)
  // What the server ran with, as option-table values: model, gpu, tp and the server_* limits.
  std::vector<std::pair<const option_spec*, option_value>> options;
  // The requests as the benchmark sent them: their lengths (a lengths file's own, or the
  // random dataset's fixed ones num_prompts times), max_concurrency and request_rate.
  vllm_bench_result requests;
  fidelity_values measured{};  // published and compared; NaN where blank or excluded
  std::string unusable_reason;  // not "" : the point is listed, not simulated
  // not "" : simulated and reported, but left out of `check-fidelity --fit` (optional column
  // not_fitted_reason): what decides the point is something the model does not have yet.
  std::string not_fitted_reason;
};

// Parses the points file's text; `base_dir` is where its lengths files are found (its folder).
expected<std::vector<fidelity_point>, std::string> parse_fidelity_points(
    std::string_view text, std::string_view source, const std::filesystem::path& base_dir);
expected<std::vector<fidelity_point>, std::string> read_fidelity_points(const std::filesystem::path& path);

}  // namespace kvscope
