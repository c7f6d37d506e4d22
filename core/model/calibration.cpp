#include "model/calibration.hpp"
#include "util/json_fields.hpp"
#include "util/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

using detail::fail_field;

// A number in (0, max], or in [min, max] for a min > 0: the efficiencies stay within what a GPU
// file may say (model/gpu_spec.cpp), so a calibration cannot make a step take forever.
double positive(const json& j, const char* key, double max, double min = 0) {
  const auto it = j.find(key);
  if (it == j.end()) fail_field(key, "missing");
  if (!it->is_number()) fail_field(key, "expected a number");
  const double v = it->get<double>();
  if (!(v > 0 && v >= min && v <= max)) {
    fail_field(key, "must be in " +
                        (min > 0 ? "[" + format_significant(min, 6) : std::string("(0")) + ", " +
                        format_significant(max, 6) + "], got " + format_significant(v, 6));
  }
  return v;
}

std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) fail_field(key, "expected a string");
  return it->get<std::string>();
}

json residual_json(const calibration_residual& r) {
  return {{"source", r.source},
          {"measured_ttft_ms", r.measured_ttft_ms},
          {"predicted_ttft_ms", r.predicted_ttft_ms},
          {"measured_tpot_ms", r.measured_tpot_ms},
          {"predicted_tpot_ms", r.predicted_tpot_ms}};
}

// A measured value m predicted as p with error e = p / m - 1 lies at p / (1 + e).
predicted_range range_of(double predicted, double lo, double hi) {
  return {predicted / (1 + std::max(hi, 0.0)), predicted / (1 + std::min(lo, 0.0))};
}

// An optional band [lo, hi] of relative errors, each in (-1, 10].
std::pair<double, double> band_pair(const json& band, const char* key) {
  const auto it = band.find(key);
  if (it == band.end()) return {0, 0};
  const std::string field = std::string("error_band.") + key;
  if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number() || !(*it)[1].is_number()) {
    fail_field(field, "expected [lowest, highest] relative error");
  }
  const double lo = (*it)[0], hi = (*it)[1];
  if (!(lo > -1 && lo <= hi && hi <= 10)) {
    fail_field(field, "must be -1 < lowest <= highest <= 10, got [" + format_significant(lo, 6) +
                          ", " + format_significant(hi, 6) + "]");
  }
  return {lo, hi};
}

void parse_band(const json& j, calibration& c) {
  const auto it = j.find("error_band");
  if (it == j.end()) return;  // written before calibrations carried one
  if (!it->is_object()) fail_field("error_band", "expected an object");
  const auto basis = it->find("basis");
  if (basis == it->end() || !basis->is_string())
    fail_field("error_band.basis", "expected a string");
  bool known = false;
  for (band_basis b : {band_basis::none, band_basis::residuals, band_basis::leave_one_out}) {
    if (basis->get<std::string>() == to_string(b)) c.basis = b, known = true;
  }
  if (!known) {
    fail_field("error_band.basis", "expected none, residuals or leave-one-out, got '" +
                                       basis->get<std::string>() + "'");
  }
  std::tie(c.band.ttft_lo, c.band.ttft_hi) = band_pair(*it, "ttft");
  std::tie(c.band.tpot_lo, c.band.tpot_hi) = band_pair(*it, "tpot");
}

}  // namespace

std::string_view to_string(band_basis b) noexcept {
  switch (b) {
    case band_basis::residuals: return "residuals";
    case band_basis::leave_one_out: return "leave-one-out";
    case band_basis::none: break;
  }
  return "none";
}

predicted_range ttft_range(const calibration& c, double predicted) {
  return range_of(predicted, c.band.ttft_lo, c.band.ttft_hi);
}
predicted_range tpot_range(const calibration& c, double predicted) {
  return range_of(predicted, c.band.tpot_lo, c.band.tpot_hi);
}
predicted_range e2e_range(const calibration& c, double predicted) {
  return range_of(predicted, std::min(c.band.ttft_lo, c.band.tpot_lo), std::max(c.band.ttft_hi, c.band.tpot_hi));
}
predicted_range throughput_range(const calibration& c, double predicted) {
  // Tokens per second go as 1 / TPOT: where the model's TPOT is over by e, the measured
  // throughput is the predicted one times (1 + e).
  return {predicted * (1 + std::min(c.band.tpot_lo, 0.0)), predicted * (1 + std::max(c.band.tpot_hi, 0.0))};
}

std::string range_shares_text(const calibration& c) {
  if (c.basis == band_basis::none) {
    return "no range: the calibration fitted as many parameters as it had figures, so its error is unknown";
  }
  const auto shares = [](predicted_range r) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.1f %% to %+.1f %%", 100 * (r.lo - 1), 100 * (r.hi - 1));
    return std::string(buf);
  };
  return "TTFT p50 " + shares(ttft_range(c, 1)) + ", TPOT and ITL p50 " + shares(tpot_range(c, 1)) + ", e2e p50 " +
         shares(e2e_range(c, 1)) + ", output throughput " + shares(throughput_range(c, 1)) + " (from the calibration's " +
         (c.basis == band_basis::leave_one_out ? "leave-one-out errors" : "residuals") + ")";
}

std::string calibration_to_json(const calibration& c) {
  json j;
  j["kvscope_calibration"] = 1;
  j["model"] = c.model;
  j["gpu"] = c.gpu;
  j["tensor_parallel"] = c.tensor_parallel;
  j["compute_efficiency"] = c.compute_efficiency;
  j["memory_efficiency"] = c.memory_efficiency;
  if (c.kv_memory_efficiency > 0) j["kv_memory_efficiency"] = c.kv_memory_efficiency;
  j["step_overhead_s"] = c.step_overhead_s;
  j["layer_overhead_s"] = c.layer_overhead_s;
  j["sequence_overhead_s"] = c.sequence_overhead_s;
  j["rms_relative_error"] = c.rms_relative_error;
  j["evaluations"] = c.evaluations;
  j["independent_figures"] = c.independent_figures;
  j["fitted"] = c.fitted;
  j["held_at_defaults"] = c.held;
  j["residuals"] = json::array();
  for (const auto& r : c.residuals) j["residuals"].push_back(residual_json(r));
  j["leave_one_out"] = json::array();
  for (const auto& r : c.leave_one_out) j["leave_one_out"].push_back(residual_json(r));
  if (std::isfinite(c.leave_one_out_rms_relative_error)) {
    j["leave_one_out_rms_relative_error"] = c.leave_one_out_rms_relative_error;
  }
  j["error_band"] = {{"basis", std::string(to_string(c.basis))},
                     {"ttft", {c.band.ttft_lo, c.band.ttft_hi}},
                     {"tpot", {c.band.tpot_lo, c.band.tpot_hi}}};
  return j.dump(2) + "\n";
}

expected<calibration, std::string> parse_calibration(std::string_view text_in, std::string_view source) {
  json j;
  try {
    j = json::parse(text_in.begin(), text_in.end());
  } catch (const json::exception& e) {  // a syntax error, or a number past a double (2e505)
    return unexpected{std::string(source) + ": invalid JSON: " + e.what()};
  }
  return detail::with_source(source, [&] {
    if (!j.is_object() || !j.contains("kvscope_calibration")) {
      fail_field("kvscope_calibration", "missing (not a kvscope calibration file)");
    }
    calibration c;
    c.model = text(j, "model");
    c.gpu = text(j, "gpu");
    if (const auto it = j.find("tensor_parallel"); it != j.end()) {
      if (!it->is_number_unsigned() || *it == 0)
        fail_field("tensor_parallel", "expected a positive integer");
      c.tensor_parallel = it->get<std::uint32_t>();
    }
    c.compute_efficiency = positive(j, "compute_efficiency", 1, 0.01);
    c.memory_efficiency = positive(j, "memory_efficiency", 1, 0.01);
    if (j.contains("kv_memory_efficiency")) {  // absent before it was a parameter
      c.kv_memory_efficiency = positive(j, "kv_memory_efficiency", 1, 0.01);
    }
    c.step_overhead_s = positive(j, "step_overhead_s", 1);
    if (const auto it = j.find("layer_overhead_s"); it != j.end()) {  // absent before the per-layer term
      if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= 0.01)) {
        fail_field("layer_overhead_s", "must be in [0, 0.01]");
      }
      c.layer_overhead_s = *it;
    }
    if (const auto it = j.find("sequence_overhead_s"); it != j.end()) {
      if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= 0.01)) {
        fail_field("sequence_overhead_s", "must be in [0, 0.01]");
      }
      c.sequence_overhead_s = *it;
    }
    if (const auto it = j.find("rms_relative_error"); it != j.end() && it->is_number())
      c.rms_relative_error = *it;
    parse_band(j, c);
    return c;
  });
}

expected<calibration, std::string> read_calibration(const std::filesystem::path& path) {
  return detail::read_and_parse(path, parse_calibration);
}

}  // namespace kvscope
