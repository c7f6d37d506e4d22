#include "engine/session.hpp"

#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "io/json_checks.hpp"
#include "io/policy_file.hpp"
#include "io/text_checks.hpp"
#include "util/atomic_write.hpp"

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

// A problem at a field path, turned into "SOURCE: field 'a.b': why" at the boundary.
struct field_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw field_error("field '" + path + "': " + why);
}

void only_keys(const json& object, const std::string& path,
               std::initializer_list<std::string_view> allowed) {
  if (!object.is_object()) fail(path, std::string("expected an object, got ") + object.type_name());
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) fail(path.empty() ? key : path + "." + key, "unknown key");
  }
}

template <class T>
void read_field(const json& object, const std::string& path, std::string_view key, T& out) {
  const auto it = object.find(std::string(key));
  if (it == object.end()) return;  // missing: keep the default
  const std::string where = path.empty() ? std::string(key) : path + "." + std::string(key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) fail(where, std::string("expected true or false, got ") + it->type_name());
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) fail(where, std::string("expected a string, got ") + it->type_name());
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!it->is_number()) fail(where, std::string("expected a number, got ") + it->type_name());
  } else {
    if (!it->is_number_unsigned()) {
      fail(where, std::string("expected a non-negative integer, got ") + it->type_name());
    }
    if (it->template get<std::uint64_t>() > std::numeric_limits<T>::max()) fail(where, "too large");
  }
  out = it->template get<T>();
}

json policy_json(const policy_config& p) {
  return json::parse(serialize_policy_config(p, config_format::json));
}

json command_json(const logged_command& c) {
  json j;
  j["step"] = c.step;
  std::visit(
      [&j](const auto& cmd) {
        using T = std::decay_t<decltype(cmd)>;
        if constexpr (std::is_same_v<T, play_command>) j["type"] = "play";
        if constexpr (std::is_same_v<T, pause_command>) j["type"] = "pause";
        if constexpr (std::is_same_v<T, reset_command>) j["type"] = "reset";
        if constexpr (std::is_same_v<T, step_command>) {
          j["type"] = "step";
          j["steps"] = cmd.steps;
        }
        if constexpr (std::is_same_v<T, speed_command>) {
          j["type"] = "speed";
          j["steps_per_second"] = cmd.steps_per_second;
        }
        if constexpr (std::is_same_v<T, reconfigure_command>) {
          j["type"] = "reconfigure";
          j["policy"] = policy_json(cmd.config);
        }
      },
      c.command);
  return j;
}

policy_config parse_policy(const json& j, const std::string& path) {
  auto parsed = parse_policy_config(j.dump(), config_format::json, path);
  if (!parsed) throw field_error(parsed.error());
  return *parsed;
}

logged_command parse_command(const json& j, const std::string& path) {
  only_keys(j, path, {"step", "type", "steps", "steps_per_second", "policy"});
  logged_command c;
  read_field(j, path, "step", c.step);
  std::string type;
  read_field(j, path, "type", type);
  if (type == "play") {
    c.command = play_command{};
  } else if (type == "pause") {
    c.command = pause_command{};
  } else if (type == "reset") {
    c.command = reset_command{};
  } else if (type == "step") {
    step_command s;
    read_field(j, path, "steps", s.steps);
    c.command = s;
  } else if (type == "speed") {
    speed_command s;
    read_field(j, path, "steps_per_second", s.steps_per_second);
    c.command = s;
  } else if (type == "reconfigure") {
    if (!j.contains("policy")) fail(path + ".policy", "missing");
    c.command = reconfigure_command{parse_policy(j.at("policy"), path + ".policy")};
  } else {
    fail(path + ".type", "unknown command '" + type + "'");
  }
  return c;
}

}  // namespace

std::string session_to_json(const session& s) {
  const auto& o = s.options;
  json j;
  j["kvscope_session"] = session_format_version;
  j["load"] = {{"spec", s.load_spec},
               {"format", std::string(format_name(s.format))},
               {"skip_bad_rows", s.skip_bad_rows}};
  j["options"] = {
      {"model", o.model},
      {"budget_bytes", o.budget_bytes},
      {"block_size", o.block_size},
      {"tail_tokens", o.tail_tokens},
      {"migration_batch", o.migration_batch},
      {"max_tokens", o.max_tokens},
      {"payload", o.payload == payload_mode::data ? "data" : "accounting"},
      {"prefix_caching", o.prefix_caching},
      {"max_num_seqs", o.scheduler.max_num_seqs},
      {"max_num_batched_tokens", o.scheduler.max_num_batched_tokens},
      {"watermark", o.scheduler.watermark},
      {"step_base_s", o.timing.base_s},
      {"step_prefill_token_s", o.timing.per_prefill_token_s},
      {"step_decode_token_s", o.timing.per_decode_token_s},
      {"seed", o.seed},
      {"quality_every", o.quality_every},
      {"quality_blocks", o.quality_blocks},
      {"policy", policy_json(o.policy)},
  };
  j["commands"] = json::array();
  for (const auto& c : s.commands) j["commands"].push_back(command_json(c));
  j["steps"] = s.steps;
  return j.dump(2) + "\n";
}

expected<session, std::string> session_from_json(std::string_view text, std::string_view source) {
  text = strip_utf8_bom(text);
  // Duplicate keys and numbers past a double, which nlohmann would not report as parse errors.
  if (auto checked = check_json_document(text, source); !checked) {
    return unexpected{checked.error()};
  }
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return unexpected{std::string(source) + ": invalid JSON: " + e.what()};
  }
  try {
    only_keys(j, "", {"kvscope_session", "load", "options", "commands", "steps"});
    int version = 0;
    read_field(j, "", "kvscope_session", version);
    if (version != session_format_version) {
      fail("kvscope_session", "expected version " + std::to_string(session_format_version) +
                                  ", got " + std::to_string(version));
    }
    session s;
    if (!j.contains("load")) fail("load", "missing");
    const auto& load = j.at("load");
    only_keys(load, "load", {"spec", "format", "skip_bad_rows"});
    read_field(load, "load", "spec", s.load_spec);
    if (s.load_spec.empty()) fail("load.spec", "missing or empty");
    std::string format = "auto";
    read_field(load, "load", "format", format);
    const auto parsed_format = parse_load_format(format);
    if (!parsed_format) fail("load.format", "unknown format '" + format + "'");
    s.format = *parsed_format;
    read_field(load, "load", "skip_bad_rows", s.skip_bad_rows);

    if (j.contains("options")) {
      const auto& o = j.at("options");
      auto& e = s.options;
      only_keys(o, "options",
                {"model", "budget_bytes", "block_size", "tail_tokens", "migration_batch",
                 "max_tokens", "payload", "prefix_caching", "max_num_seqs",
                 "max_num_batched_tokens", "watermark", "step_base_s", "step_prefill_token_s",
                 "step_decode_token_s", "seed", "quality_every", "quality_blocks", "policy"});
      read_field(o, "options", "model", e.model);
      read_field(o, "options", "budget_bytes", e.budget_bytes);
      read_field(o, "options", "block_size", e.block_size);
      read_field(o, "options", "tail_tokens", e.tail_tokens);
      read_field(o, "options", "migration_batch", e.migration_batch);
      read_field(o, "options", "max_tokens", e.max_tokens);
      std::string payload = "accounting";
      read_field(o, "options", "payload", payload);
      if (payload != "data" && payload != "accounting") {
        fail("options.payload", "expected \"data\" or \"accounting\", got '" + payload + "'");
      }
      e.payload = payload == "data" ? payload_mode::data : payload_mode::accounting;
      read_field(o, "options", "prefix_caching", e.prefix_caching);
      read_field(o, "options", "max_num_seqs", e.scheduler.max_num_seqs);
      read_field(o, "options", "max_num_batched_tokens", e.scheduler.max_num_batched_tokens);
      read_field(o, "options", "watermark", e.scheduler.watermark);
      read_field(o, "options", "step_base_s", e.timing.base_s);
      read_field(o, "options", "step_prefill_token_s", e.timing.per_prefill_token_s);
      read_field(o, "options", "step_decode_token_s", e.timing.per_decode_token_s);
      read_field(o, "options", "seed", e.seed);
      read_field(o, "options", "quality_every", e.quality_every);
      read_field(o, "options", "quality_blocks", e.quality_blocks);
      if (o.contains("policy")) e.policy = parse_policy(o.at("policy"), "options.policy");
      if (auto reason = validate(e)) fail("options", *reason);
    }
    if (j.contains("commands")) {
      const auto& commands = j.at("commands");
      if (!commands.is_array()) fail("commands", "expected an array");
      for (std::size_t i = 0; i < commands.size(); ++i) {
        s.commands.push_back(parse_command(commands[i], "commands[" + std::to_string(i) + "]"));
      }
    }
    read_field(j, "", "steps", s.steps);
    return s;
  } catch (const field_error& e) {
    return unexpected{std::string(source) + ": " + e.what()};
  }
}

expected<session, std::string> read_session(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected{path.string() + ": cannot open file"};
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return session_from_json(text, path.string());
}

expected<void, std::string> write_session(const std::filesystem::path& path, const session& s) {
  return write_file_atomically(path, session_to_json(s));
}

std::unique_ptr<request_source> open_session_load(const session& s) {
  read_options options;
  options.skip_bad_rows = s.skip_bad_rows;
  return open_load(s.load_spec, s.format, options);
}

void apply_to_engine(const runner_command& command, std::unique_ptr<engine>& e,
                     const std::function<std::unique_ptr<engine>()>& remake) {
  if (const auto* r = std::get_if<reconfigure_command>(&command)) {
    (void)e->reconfigure(r->config);  // an invalid config is logged and changes nothing
  } else if (std::holds_alternative<reset_command>(command)) {
    e = remake();
  }
}

std::unique_ptr<engine> replay(const session& s,
                               const std::function<void(const engine&)>& on_step) {
  const auto remake = [&s] {
    return std::make_unique<engine>(s.options, open_session_load(s));
  };
  auto e = remake();
  std::size_t next = 0;
  for (;;) {
    // Commands apply before the step they name; after a reset steps count from 0 again.
    while (next < s.commands.size() && s.commands[next].step == e->steps_done()) {
      apply_to_engine(s.commands[next++].command, e, remake);
    }
    const bool logged_done = next == s.commands.size();
    if (logged_done && s.steps > 0 && e->steps_done() >= s.steps) break;
    if (!e->step()) {
      if (logged_done) break;
      // The load ended before a logged step: nothing more can match; apply the rest in order.
      while (next < s.commands.size()) apply_to_engine(s.commands[next++].command, e, remake);
      if (e->finished()) break;
      continue;
    }
    if (on_step) on_step(*e);
  }
  return e;
}

}  // namespace kvscope
