#include "model/calibration.hpp"
#include "util/number_text.hpp"
#include "util/text_file.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

struct field_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A number in (0, max], or in [min, max] for a min > 0: the efficiencies stay within what a GPU
// file may say (model/gpu_spec.cpp), so a calibration cannot make a step take forever.
double positive(const json& j, const char* key, double max, double min = 0) {
  const auto it = j.find(key);
  if (it == j.end()) throw field_error(std::string("field '") + key + "': missing");
  if (!it->is_number()) throw field_error(std::string("field '") + key + "': expected a number");
  const double v = it->get<double>();
  if (!(v > 0 && v >= min && v <= max)) {
    throw field_error(std::string("field '") + key + "': must be in " +
                      (min > 0 ? "[" + format_significant(min, 6) : std::string("(0")) + ", " +
                      format_significant(max, 6) + "], got " + format_significant(v, 6));
  }
  return v;
}

std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) throw field_error(std::string("field '") + key + "': expected a string");
  return it->get<std::string>();
}

}  // namespace

std::string calibration_to_json(const calibration& c) {
  json j;
  j["kvscope_calibration"] = 1;
  j["model"] = c.model;
  j["gpu"] = c.gpu;
  j["tensor_parallel"] = c.tensor_parallel;
  j["compute_efficiency"] = c.compute_efficiency;
  j["memory_efficiency"] = c.memory_efficiency;
  j["step_overhead_s"] = c.step_overhead_s;
  j["layer_overhead_s"] = c.layer_overhead_s;
  j["sequence_overhead_s"] = c.sequence_overhead_s;
  j["rms_relative_error"] = c.rms_relative_error;
  j["evaluations"] = c.evaluations;
  j["residuals"] = json::array();
  for (const auto& r : c.residuals) {
    j["residuals"].push_back({{"source", r.source},
                              {"measured_ttft_ms", r.measured_ttft_ms},
                              {"predicted_ttft_ms", r.predicted_ttft_ms},
                              {"measured_tpot_ms", r.measured_tpot_ms},
                              {"predicted_tpot_ms", r.predicted_tpot_ms}});
  }
  return j.dump(2) + "\n";
}

expected<calibration, std::string> parse_calibration(std::string_view text_in, std::string_view source) {
  json j;
  try {
    j = json::parse(text_in.begin(), text_in.end());
  } catch (const json::exception& e) {  // a syntax error, or a number past a double (2e505)
    return unexpected{std::string(source) + ": invalid JSON: " + e.what()};
  }
  try {
    if (!j.is_object() || !j.contains("kvscope_calibration")) {
      throw field_error("field 'kvscope_calibration': missing (not a kvscope calibration file)");
    }
    calibration c;
    c.model = text(j, "model");
    c.gpu = text(j, "gpu");
    if (const auto it = j.find("tensor_parallel"); it != j.end()) {
      if (!it->is_number_unsigned() || *it == 0) throw field_error("field 'tensor_parallel': expected a positive integer");
      c.tensor_parallel = it->get<std::uint32_t>();
    }
    c.compute_efficiency = positive(j, "compute_efficiency", 1, 0.01);
    c.memory_efficiency = positive(j, "memory_efficiency", 1, 0.01);
    c.step_overhead_s = positive(j, "step_overhead_s", 1);
    if (const auto it = j.find("layer_overhead_s"); it != j.end()) {  // absent before the per-layer term
      if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= 0.01)) {
        throw field_error("field 'layer_overhead_s': must be in [0, 0.01]");
      }
      c.layer_overhead_s = *it;
    }
    if (const auto it = j.find("sequence_overhead_s"); it != j.end()) {
      if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= 0.01)) {
        throw field_error("field 'sequence_overhead_s': must be in [0, 0.01]");
      }
      c.sequence_overhead_s = *it;
    }
    if (const auto it = j.find("rms_relative_error"); it != j.end() && it->is_number()) c.rms_relative_error = *it;
    return c;
  } catch (const field_error& e) {
    return unexpected{std::string(source) + ": " + e.what()};
  }
}

expected<calibration, std::string> read_calibration(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text) return unexpected{text.error()};
  return parse_calibration(*text, path.string());
}

}  // namespace kvscope
