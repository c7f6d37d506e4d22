#pragma once
// The files of resources/models and resources/gpus, compiled into the library by
// model/CMakeLists.txt so that built-ins never depend on files at run time (internal to model/).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.hpp"

namespace kvscope::detail {

struct builtin_text {
  std::string_view name;  // the file name without ".json": the built-in's short name
  std::string_view file;  // e.g. "resources/models/llama3-8b.json", for error messages
  std::string_view text;  // the file's bytes
};

// In the order model/CMakeLists.txt lists them.
std::span<const builtin_text> builtin_model_texts() noexcept;
std::span<const builtin_text> builtin_gpu_texts() noexcept;

// The names of `texts`, in order (views into the compiled-in data).
std::vector<std::string_view> names_of(std::span<const builtin_text> texts);

// "a, b, c": names for an error message.
std::string join_names(std::span<const std::string_view> names);

// `parse(text, file)` of the built-in called exactly `name`, or an error naming the built-ins:
// "unknown KIND 'NAME' (built-in: a, b; or a FILE_KIND path ending in .json)".
template <class Parse>
auto parse_builtin(std::span<const builtin_text> texts, std::string_view name,
                   std::string_view kind, std::string_view file_kind, Parse parse)
    -> decltype(parse(std::string_view(), std::string_view())) {
  for (const auto& builtin : texts) {
    if (builtin.name == name) return parse(builtin.text, builtin.file);
  }
  const auto names = names_of(texts);
  return unexpected{"unknown " + std::string(kind) + " '" + std::string(name) +
                    "' (built-in: " + join_names(names) + "; or a " + std::string(file_kind) +
                    " path ending in .json)"};
}

}  // namespace kvscope::detail
