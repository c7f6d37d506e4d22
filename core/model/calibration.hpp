#pragma once
// A calibration of the roofline timing: the GPU's efficiency factors and step overhead fitted
// to measured benchmarks (`kvscope-cli calibrate`), with what was measured, what the fitted
// model predicts and their residuals, for one model on one GPU. `--calibration FILE` applies it.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/expected.hpp"

namespace kvscope {

struct calibration_residual {
  std::string source;          // the measurement file
  double measured_ttft_ms = 0, predicted_ttft_ms = 0;  // medians
  double measured_tpot_ms = 0, predicted_tpot_ms = 0;
};

struct calibration {
  std::string model;
  std::string gpu;
  std::uint32_t tensor_parallel = 1;
  double compute_efficiency = 0;
  double memory_efficiency = 0;
  double step_overhead_s = 0;   // the GPU's, held: one step's fixed cost is the layers' too
  double layer_overhead_s = 0;  // fitted: with the layer count, the fixed cost of every step
  double sequence_overhead_s = 0;
  std::vector<calibration_residual> residuals;
  double rms_relative_error = 0;  // over every median fitted
  std::uint64_t evaluations = 0;  // simulations the fit ran
};

std::string calibration_to_json(const calibration& c);
// Errors name the source and the field.
expected<calibration, std::string> parse_calibration(std::string_view text, std::string_view source);
expected<calibration, std::string> read_calibration(const std::filesystem::path& path);

}  // namespace kvscope
