#pragma once
// The models kvscope ships: their published config.json files, compiled in (resources/models).
#include <span>
#include <string>
#include <string_view>

#include "model/model_config.hpp"
#include "util/expected.hpp"

namespace kvscope {

// tiny, llama3-8b, llama3-70b, qwen3-8b, qwen3-14b, qwen3-32b, mistral-7b.
std::span<const std::string_view> builtin_model_names() noexcept;

// The built-in called exactly `name`; an error listing the names otherwise.
expected<model_config, std::string> builtin_model(std::string_view name);

// A path ending in ".json" is read as a config.json; anything else must be a built-in's name.
expected<model_config, std::string> resolve_model(std::string_view name_or_path);

}  // namespace kvscope
