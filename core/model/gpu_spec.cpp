#include "model/gpu_spec.hpp"

#include <cmath>
#include <limits>

#include "model/builtin_texts.hpp"
#include "model/json_fields.hpp"
#include "util/byte_size.hpp"

namespace kvscope {
namespace {

constexpr double tiny = std::numeric_limits<double>::min();  // "> 0" as an inclusive bound
constexpr double huge = std::numeric_limits<double>::max();

struct number_field {
  std::string_view name;
  double gpu_spec::*member;
  double low;
  double high;
  std::string_view range;  // for messages
  bool required;
};

constexpr number_field number_fields[] = {
    {"peak_bf16_flops", &gpu_spec::peak_bf16_flops, tiny, huge, "a number > 0", true},
    {"memory_bandwidth_bytes_per_s", &gpu_spec::memory_bandwidth_bytes_per_s, tiny, huge,
     "a number > 0", true},
    {"link_bandwidth_bytes_per_s", &gpu_spec::link_bandwidth_bytes_per_s, tiny, huge,
     "a number > 0", true},
    {"compute_efficiency", &gpu_spec::compute_efficiency, tiny, 1.0, "a number in (0, 1]", false},
    {"memory_efficiency", &gpu_spec::memory_efficiency, tiny, 1.0, "a number in (0, 1]", false},
    // Anything near a second is a unit mistake (milliseconds written as seconds).
    {"step_overhead_s", &gpu_spec::step_overhead_s, 0.0, 1.0, "seconds in [0, 1]", false},
    {"sequence_overhead_s", &gpu_spec::sequence_overhead_s, 0.0, 0.01, "seconds in [0, 0.01]", false},
};

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
    if (bytes && *bytes > 0) return *bytes;
    return unexpected{detail::field_error(
        source, "memory_bytes", "expected a size > 0 such as \"80 GiB\", got \"" + text + "\"")};
  }
  return detail::read_integer(value, source, "memory_bytes");
}

}  // namespace

std::optional<std::string> check_gpu_spec(const gpu_spec& gpu) {
  for (const auto& f : number_fields) {
    const double v = gpu.*(f.member);
    if (!std::isfinite(v) || v < f.low || v > f.high) {
      return detail::field_error(gpu.name, f.name,
                                 "expected " + std::string(f.range) + ", got " + std::to_string(v));
    }
  }
  if (gpu.memory_bytes == 0) return detail::field_error(gpu.name, "memory_bytes", "must be > 0");
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
