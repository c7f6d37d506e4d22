#include "memory/model_shape.hpp"

#include <vector>

#include "model/builtin_models.hpp"

namespace kvscope {

model_shape shape_of(const model_config& c) noexcept {
  return {static_cast<std::uint32_t>(c.num_hidden_layers),
          static_cast<std::uint32_t>(c.num_key_value_heads), static_cast<std::uint32_t>(c.head_dim)};
}

std::span<const model_preset> model_presets() noexcept {
  static const std::vector<model_preset> presets = [] {
    std::vector<model_preset> out;
    for (const auto name : builtin_model_names()) out.push_back({name, shape_of(*builtin_model(name))});
    return out;
  }();
  return presets;
}

std::optional<model_shape> find_model_shape(std::string_view name_or_path) {
  for (const auto& preset : model_presets()) {
    if (preset.name == name_or_path) return preset.shape;
  }
  auto config = resolve_model(name_or_path);
  if (!config) return std::nullopt;
  return shape_of(*config);
}

}  // namespace kvscope
