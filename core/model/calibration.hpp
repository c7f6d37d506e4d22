#pragma once
// A calibration of the roofline timing: the GPU's efficiency factors and step overhead fitted
// to measured benchmarks (`kvscope-cli calibrate`), with what was measured, what the fitted
// model predicts and their residuals, for one model on one GPU. `--calibration FILE` applies it.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.hpp"

namespace kvscope {

struct calibration_residual {
  std::string source;          // the measurement file
  double measured_ttft_ms = 0, predicted_ttft_ms = 0;  // medians
  double measured_tpot_ms = 0, predicted_tpot_ms = 0;
};

// The relative errors (predicted - measured) / measured a calibration makes, lowest and highest
// over its measurements, of each figure it fits: what a calibrated prediction's range comes from.
struct calibration_band {
  double ttft_lo = 0, ttft_hi = 0;
  double tpot_lo = 0, tpot_hi = 0;
};

// Where a calibration's band comes from.
enum class band_basis : std::uint8_t {
  none,           // one measurement fitted exactly: nothing to judge the error by
  residuals,      // the fit's own residuals (in-sample; more figures than parameters fitted)
  leave_one_out,  // each measurement predicted by a fit without it (two measurements or more)
};
std::string_view to_string(band_basis b) noexcept;

struct calibration {
  std::string model;
  std::string gpu;
  std::uint32_t tensor_parallel = 1;
  // Share of the GPU's benchmark rates its steps reach, measured on it: the GPU's sustained_share
  // is in it, so a calibrated run sets that to 1.
  double compute_efficiency = 0;
  double memory_efficiency = 0;
  double kv_memory_efficiency = 0;  // 0 in files written before it was a parameter: the GPU's
  double step_overhead_s = 0;   // the GPU's, held: one step's fixed cost is the layers' too
  double layer_overhead_s = 0;  // fitted: with the layer count, the fixed cost of every step
  double sequence_overhead_s = 0;
  std::vector<calibration_residual> residuals;
  double rms_relative_error = 0;  // over every median fitted
  std::uint64_t evaluations = 0;  // simulations the fit ran
  // What the measurements determine: the figures that are independent (two medians per distinct
  // load), the parameters fitted and those held at the GPU's defaults because the figures do not
  // tell them apart from the fitted ones. Option-table keys ("compute_efficiency", ...).
  std::uint32_t independent_figures = 0;
  std::vector<std::string> fitted;
  std::vector<std::string> held;
  // Each measurement as predicted by a fit on the others (empty with one measurement).
  std::vector<calibration_residual> leave_one_out;
  double leave_one_out_rms_relative_error = std::numeric_limits<double>::quiet_NaN();  // none: one file
  calibration_band band;
  band_basis basis = band_basis::none;
};

// A figure predicted by a calibrated run, as a range from the calibration's errors: the
// measurement that would have given `predicted` with the band's lowest and highest error.
struct predicted_range {
  double lo = 0, hi = 0;
};
predicted_range ttft_range(const calibration& c, double predicted);
// TPOT and ITL: decode time, judged by the TPOT errors.
predicted_range tpot_range(const calibration& c, double predicted);
// End-to-end latency: a TTFT plus the decode, within the wider of the two bands.
predicted_range e2e_range(const calibration& c, double predicted);
// Throughput: the inverse of the time per token.
predicted_range throughput_range(const calibration& c, double predicted);
// The ranges as shares of any predicted value, for outputs with many rows (a sweep): "TTFT p50
// -4.8 % to +9.5 %, TPOT/ITL p50 ..., e2e ..., output throughput ... (from the calibration's
// leave-one-out errors)", or why there is none.
std::string range_shares_text(const calibration& c);

std::string calibration_to_json(const calibration& c);
// Errors name the source and the field.
expected<calibration, std::string> parse_calibration(std::string_view text, std::string_view source);
expected<calibration, std::string> read_calibration(const std::filesystem::path& path);

}  // namespace kvscope
