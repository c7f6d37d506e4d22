#include "sweep/sweep_space.hpp"

#include <algorithm>

#include "sweep/decimal_range.hpp"

namespace kvscope {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// One item of a list: its text, and whether it was quoted (a quoted item is never a range).
struct item {
  std::string text;
  bool quoted = false;
};

// Splits `text` at blanks outside double quotes.
expected<std::vector<std::string>, std::string> split_tokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::string current;
  bool in_quotes = false, any = false;
  for (char c : text) {
    if (c == '"') in_quotes = !in_quotes;
    if (!in_quotes && is_blank(c)) {
      if (any) tokens.push_back(std::move(current));
      current.clear();
      any = false;
      continue;
    }
    current += c;
    any = true;
  }
  if (in_quotes) return unexpected{std::string("a double quote is not closed")};
  if (any) tokens.push_back(std::move(current));
  return tokens;
}

// Splits a value list at commas outside double quotes, dropping the quotes.
std::vector<item> split_items(std::string_view list) {
  std::vector<item> items(1);
  bool in_quotes = false;
  for (char c : list) {
    if (c == '"') {
      in_quotes = !in_quotes;
      items.back().quoted = true;
    } else if (c == ',' && !in_quotes) {
      items.emplace_back();
    } else {
      items.back().text += c;
    }
  }
  return items;
}

struct name_and_rest {
  std::string name;
  std::string rest;
};

expected<name_and_rest, std::string> split_setting(const std::string& token) {
  const auto eq = token.find('=');
  if (eq == std::string::npos || eq == 0) {
    return unexpected{"'" + token + "': expected NAME=VALUE"};
  }
  return name_and_rest{token.substr(0, eq), token.substr(eq + 1)};
}

bool needs_quotes(const std::string& value) {
  return value.empty() || value.find_first_of(" \t,\"") != std::string::npos;
}

}  // namespace

expected<std::vector<sweep_axis>, std::string> parse_grid(std::string_view text, std::string_view who) {
  const std::string flag = std::string(who) + ": ";
  auto tokens = split_tokens(text);
  if (!tokens) return unexpected{flag + tokens.error()};
  if (tokens->empty()) return unexpected{flag + "no axes (expected NAME=V1,V2 ...)"};
  std::vector<sweep_axis> axes;
  for (const auto& token : *tokens) {
    auto setting = split_setting(token);
    if (!setting) return unexpected{flag + setting.error()};
    const std::string axis_who = flag + "axis '" + setting->name + "': ";
    for (const auto& a : axes) {
      if (a.name == setting->name) return unexpected{axis_who + "given twice"};
    }
    sweep_axis axis{setting->name, {}};
    for (auto& it : split_items(setting->rest)) {
      if (it.text.empty() && !it.quoted) return unexpected{axis_who + "an empty value"};
      if (!it.quoted && looks_like_range(it.text)) {
        auto values = expand_range(it.text);
        if (!values) return unexpected{axis_who + values.error()};
        for (auto& v : *values) axis.values.push_back(std::move(v));
      } else {
        axis.values.push_back(std::move(it.text));
      }
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

expected<sweep_plan, std::string> grid_plan(const std::vector<sweep_axis>& axes, std::string_view who,
                                            std::size_t max_configs) {
  const std::string flag = std::string(who) + ": ";
  sweep_plan plan;
  std::size_t count = 1;
  for (const auto& a : axes) {
    plan.columns.push_back(a.name);
    if (a.values.empty()) return unexpected{flag + "axis '" + a.name + "' has no values"};
    if (count > max_configs / a.values.size()) {
      return unexpected{flag + "more than " + std::to_string(max_configs) + " configs"};
    }
    count *= a.values.size();
  }
  plan.configs.reserve(count);
  std::vector<std::size_t> at(axes.size(), 0);
  for (std::size_t n = 0; n < count; ++n) {
    sweep_config config;
    for (std::size_t a = 0; a < axes.size(); ++a) config.push_back({axes[a].name, axes[a].values[at[a]]});
    plan.configs.push_back(std::move(config));
    plan.origins.emplace_back(who);
    // The last axis turns fastest, like an odometer.
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++at[a] < axes[a].values.size()) break;
      at[a] = 0;
    }
  }
  return plan;
}

expected<sweep_plan, std::string> parse_config_lines(std::string_view text, std::string_view source) {
  sweep_plan plan;
  std::size_t line_no = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const auto end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const std::string where = std::string(source) + ":" + std::to_string(line_no) + ": ";
    auto tokens = split_tokens(line);
    if (!tokens) return unexpected{where + tokens.error()};
    if (tokens->empty() || tokens->front().starts_with('#')) continue;
    sweep_config config;
    for (const auto& token : *tokens) {
      if (token.starts_with('#')) break;
      auto setting = split_setting(token);
      if (!setting) return unexpected{where + setting.error()};
      if (find_setting(config, setting->name)) {
        return unexpected{where + "'" + setting->name + "' given twice"};
      }
      auto items = split_items(setting->rest);
      if (items.size() != 1) {
        return unexpected{where + "'" + setting->name + "': one value per config (quote a value with commas)"};
      }
      if (std::find(plan.columns.begin(), plan.columns.end(), setting->name) == plan.columns.end()) {
        plan.columns.push_back(setting->name);
      }
      config.push_back({setting->name, std::move(items.front().text)});
    }
    plan.configs.push_back(std::move(config));
    plan.origins.push_back(std::string(source) + ":" + std::to_string(line_no));
  }
  if (plan.configs.empty()) return unexpected{std::string(source) + ": no configs"};
  return plan;
}

const std::string* find_setting(const sweep_config& config, std::string_view name) {
  for (const auto& s : config) {
    if (s.name == name) return &s.value;
  }
  return nullptr;
}

std::string describe(const sweep_config& config) {
  std::string out;
  for (const auto& s : config) {
    if (!out.empty()) out += ' ';
    out += s.name + '=' + (needs_quotes(s.value) ? '"' + s.value + '"' : s.value);
  }
  return out;
}

}  // namespace kvscope
