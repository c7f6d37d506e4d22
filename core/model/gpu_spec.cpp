#include "model/gpu_spec.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "model/builtin_texts.hpp"
#include "util/byte_size.hpp"
#include "util/json_fields.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

struct number_field {
  std::string_view name;
  double gpu_spec::*member;
  double low;
  double high;
  std::string_view range;  // for messages
  bool required;
};

// What any GPU has, with room on both sides: an RTX 4090 reaches 165 TFLOP/s BF16 and 1 TB/s,
// a B200 2.25 PFLOP/s and 8 TB/s; PCIe 3 x16 moves 16 GB/s, NVLink 5 900 GB/s each way. A figure
// outside is a unit slip or a hostile file, and would make step times zero or infinite.
constexpr number_field number_fields[] = {
    {"peak_bf16_flops", &gpu_spec::peak_bf16_flops, 1e12, 1e17,
     "FLOP/s in [1e12, 1e17] (an H100 SXM: 9.89e14)", true},
    {"memory_bandwidth_bytes_per_s", &gpu_spec::memory_bandwidth_bytes_per_s, 1e10, 1e14,
     "bytes/s in [1e10, 1e14] (an H100 SXM: 3.35e12)", true},
    {"link_bandwidth_bytes_per_s", &gpu_spec::link_bandwidth_bytes_per_s, 1e9, 1e13,
     "bytes/s in [1e9, 1e13] (NVLink 4: 4.5e11 each way)", true},
    // 0: the default share of the peak; otherwise a benchmark's figure, checked against the peak.
    {"gemm_flops", &gpu_spec::gemm_flops, 0, 1e17, "0 or FLOP/s up to peak_bf16_flops", false},
    {"attention_flops", &gpu_spec::attention_flops, 0, 1e17, "0 or FLOP/s up to peak_bf16_flops",
     false},
    {"sustained_share", &gpu_spec::sustained_share, 0.05, 1.0, "a number in [0.05, 1]", false},
    // Below 1 % of a peak no serving engine runs; what would divide a step into nothing.
    {"compute_efficiency", &gpu_spec::compute_efficiency, 0.01, 1.0, "a number in [0.01, 1]", false},
    {"memory_efficiency", &gpu_spec::memory_efficiency, 0.01, 1.0, "a number in [0.01, 1]", false},
    {"kv_memory_efficiency", &gpu_spec::kv_memory_efficiency, 0.01, 1.0, "a number in [0.01, 1]", false},
    // Anything near a second is a unit mistake (milliseconds written as seconds).
    {"step_overhead_s", &gpu_spec::step_overhead_s, 0.0, 1.0, "seconds in [0, 1]", false},
    {"layer_overhead_s", &gpu_spec::layer_overhead_s, 0.0, 0.01, "seconds in [0, 0.01]", false},
    {"sequence_overhead_s", &gpu_spec::sequence_overhead_s, 0.0, 0.01, "seconds in [0, 0.01]", false},
};

// Memory the driver reports: from 1 GiB (no serving GPU has less) to 16 TiB.
constexpr std::uint64_t min_memory_bytes = std::uint64_t{1} << 30;
constexpr std::uint64_t max_memory_bytes = std::uint64_t{1} << 44;
constexpr std::string_view memory_range = "a size in [1 GiB, 16 TiB] such as \"80 GiB\"";

constexpr std::string_view other_fields[] = {"name", "description", "memory_bytes", "source"};

std::string known_fields() {
  std::string out;
  for (const auto& f : number_fields) out += std::string(f.name) + ", ";
  for (const auto f : other_fields) out += std::string(f) + ", ";
  out.resize(out.size() - 2);
  return out;
}

expected<std::uint64_t, std::string> read_memory_bytes(const nlohmann::json& value,
                                                       std::string_view source) {
  if (value.is_string()) {
    const auto text = value.get<std::string>();
    const auto bytes = parse_byte_size(text);
    if (bytes && *bytes >= min_memory_bytes && *bytes <= max_memory_bytes) return *bytes;
    return unexpected{detail::field_error(
        source, "memory_bytes", "expected " + std::string(memory_range) + ", got \"" + text + "\"")};
  }
  return detail::read_integer(value, source, "memory_bytes", min_memory_bytes, max_memory_bytes);
}

}  // namespace

double attainable_gemm_flops(const gpu_spec& gpu) noexcept {
  return gpu.gemm_flops > 0 ? gpu.gemm_flops : default_gemm_share_of_peak * gpu.peak_bf16_flops;
}

double attainable_attention_flops(const gpu_spec& gpu) noexcept {
  return gpu.attention_flops > 0 ? gpu.attention_flops
                                 : default_attention_share_of_peak * gpu.peak_bf16_flops;
}

std::optional<std::string> check_gpu_spec(const gpu_spec& gpu) {
  for (const auto& f : number_fields) {
    const double v = gpu.*(f.member);
    if (!std::isfinite(v) || v < f.low || v > f.high) {
      return detail::field_error(gpu.name, f.name,
                                 "expected " + std::string(f.range) + ", got " + format_significant(v, 6));
    }
  }
  for (auto [name, value] : {std::pair{"gemm_flops", gpu.gemm_flops},
                              std::pair{"attention_flops", gpu.attention_flops}}) {
    if (value > gpu.peak_bf16_flops) {
      return detail::field_error(gpu.name, name,
                                 "expected at most peak_bf16_flops (" +
                                     format_significant(gpu.peak_bf16_flops, 6) + "), got " +
                                     format_significant(value, 6));
    }
  }
  if (gpu.memory_bytes < min_memory_bytes || gpu.memory_bytes > max_memory_bytes) {
    return detail::field_error(gpu.name, "memory_bytes",
                               "expected " + std::string(memory_range) + ", got " +
                                   std::to_string(gpu.memory_bytes));
  }
  return std::nullopt;
}

expected<gpu_spec, std::string> parse_gpu_spec(std::string_view text, std::string_view source) {
  auto doc = detail::parse_json_object(text, source);
  if (!doc) return unexpected{std::move(doc).error()};

  gpu_spec gpu;
  gpu.name = std::filesystem::path(source).stem().string();
  bool seen[std::size(number_fields)] = {};
  bool seen_memory = false;
  for (const auto& [key, value] : doc->items()) {
    if (value.is_null()) continue;
    if (key == "source") {
      if (value.is_object() || value.is_string()) continue;
      return unexpected{detail::field_error(source, key, "expected an object of citations")};
    }
    if (key == "name" || key == "description") {
      auto s = detail::read_string(value, source, key);
      if (!s) return unexpected{std::move(s).error()};
      (key == "name" ? gpu.name : gpu.description) = std::move(*s);
      continue;
    }
    if (key == "memory_bytes") {
      auto bytes = read_memory_bytes(value, source);
      if (!bytes) return unexpected{std::move(bytes).error()};
      gpu.memory_bytes = *bytes;
      seen_memory = true;
      continue;
    }
    bool known = false;
    for (std::size_t i = 0; i < std::size(number_fields); ++i) {
      const auto& f = number_fields[i];
      if (f.name != key) continue;
      auto n = detail::read_number(value, source, key, f.low, f.high, f.range);
      if (!n) return unexpected{std::move(n).error()};
      gpu.*(f.member) = *n;
      seen[i] = known = true;
    }
    if (!known) {
      return unexpected{
          detail::field_error(source, key, "unknown field (expected " + known_fields() + ")")};
    }
  }
  for (std::size_t i = 0; i < std::size(number_fields); ++i) {
    if (number_fields[i].required && !seen[i]) {
      return unexpected{detail::field_error(source, number_fields[i].name, "missing")};
    }
  }
  if (!seen_memory) return unexpected{detail::field_error(source, "memory_bytes", "missing")};
  if (gpu.name.empty()) return unexpected{detail::field_error(source, "name", "must not be empty")};
  return gpu;
}

expected<gpu_spec, std::string> read_gpu_spec(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text) return unexpected{std::move(text).error()};
  return parse_gpu_spec(*text, path.string());
}

std::span<const std::string_view> builtin_gpu_names() noexcept {
  static const auto names = detail::names_of(detail::builtin_gpu_texts());
  return names;
}

expected<gpu_spec, std::string> builtin_gpu(std::string_view name) {
  return detail::parse_builtin(detail::builtin_gpu_texts(), name, "GPU", "GPU file",
                               parse_gpu_spec);
}

expected<gpu_spec, std::string> resolve_gpu(std::string_view name_or_path) {
  if (detail::names_json_file(name_or_path)) {
    return read_gpu_spec(std::filesystem::path(name_or_path));
  }
  return builtin_gpu(name_or_path);
}

}  // namespace kvscope
