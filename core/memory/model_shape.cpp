#include "memory/model_shape.hpp"

#include <array>

namespace kvscope {
namespace {

constexpr std::array<model_preset, 4> presets{{
    {"tiny", {2, 2, 64}},
    {"llama3-8b", {32, 8, 128}},
    {"qwen3-8b", {36, 8, 128}},
    {"llama3-70b", {80, 8, 128}},
}};

}  // namespace

std::span<const model_preset> model_presets() noexcept { return presets; }

std::optional<model_shape> find_model_shape(std::string_view name) noexcept {
  for (const auto& preset : presets) {
    if (preset.name == name) return preset.shape;
  }
  return std::nullopt;
}

}  // namespace kvscope
