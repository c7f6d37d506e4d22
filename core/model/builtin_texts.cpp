#include "model/builtin_texts.hpp"

namespace kvscope::detail {

std::vector<std::string_view> names_of(std::span<const builtin_text> texts) {
  std::vector<std::string_view> names;
  names.reserve(texts.size());
  for (const auto& text : texts) names.push_back(text.name);
  return names;
}

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (const auto name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace kvscope::detail
