#include "util/closest_name.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace kvscope {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Lower-case words; units of time read as one word, so a name in milliseconds matches seconds.
std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (word == "ms" || word == "us") word = "s";
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char c : name) {
    if (c == '.' || c == '_' || c == '-' || c == ' ') {
      flush();
    } else {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  flush();
  return words;
}

// Levenshtein distance, two rows.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

template <class Name>
std::optional<std::string> closest(std::string_view typed, std::span<const Name> candidates) {
  const auto typed_words = words_of(typed);
  const std::string typed_lower = lower(typed);
  // A word in common counts unless it is only the unit: "s" alone says nothing of the metric.
  // Words make a candidate close when they cover at least half of what was typed.
  const auto meaningful = static_cast<std::size_t>(std::count_if(
      typed_words.begin(), typed_words.end(), [](const std::string& w) { return w != "s"; }));
  struct score {
    std::size_t shared = 0;
    std::size_t distance = 0;
  };
  std::optional<score> best;
  std::string_view best_name;
  for (const auto& candidate : candidates) {
    const std::string_view name(candidate);
    const auto words = words_of(name);
    score s;
    for (const auto& w : typed_words) {
      if (w != "s" && std::find(words.begin(), words.end(), w) != words.end()) ++s.shared;
    }
    s.distance = edit_distance(typed_lower, lower(name));
    const bool close = (s.shared > 0 && 2 * s.shared >= meaningful) ||
                       s.distance <= std::max<std::size_t>(1, typed.size() / 3);
    if (!close) continue;
    if (!best || s.shared > best->shared || (s.shared == best->shared && s.distance < best->distance)) {
      best = s;
      best_name = name;
    }
  }
  if (!best || best_name == typed) return std::nullopt;
  return std::string(best_name);
}

template <class Name>
std::string suggestion(std::string_view typed, std::span<const Name> candidates) {
  const auto name = closest(typed, candidates);
  return name ? " (did you mean '" + *name + "'?)" : std::string();
}

}  // namespace

std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string_view> candidates) {
  return closest(typed, candidates);
}
std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string> candidates) {
  return closest(typed, candidates);
}
std::string did_you_mean(std::string_view typed, std::span<const std::string_view> candidates) {
  return suggestion(typed, candidates);
}
std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates) {
  return suggestion(typed, candidates);
}

}  // namespace kvscope
