#include "model/builtin_models.hpp"

#include "model/builtin_texts.hpp"
#include "util/json_fields.hpp"

namespace kvscope {

std::span<const std::string_view> builtin_model_names() noexcept {
  static const auto names = detail::names_of(detail::builtin_model_texts());
  return names;
}

// The file names are the short names, so parse_model_config names each config after its file.
expected<model_config, std::string> builtin_model(std::string_view name) {
  return detail::parse_builtin(detail::builtin_model_texts(), name, "model", "config.json",
                               parse_model_config);
}

expected<model_config, std::string> resolve_model(std::string_view name_or_path) {
  if (detail::names_json_file(name_or_path)) {
    return read_model_config(std::filesystem::path(name_or_path));
  }
  return builtin_model(name_or_path);
}

}  // namespace kvscope
