#include "io/session_file.hpp"

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "engine/engine_setup.hpp"
#include "io/json_checks.hpp"
#include "io/policy_file.hpp"
#include "io/text_checks.hpp"
#include "io/trace_checksum.hpp"
#include "load/resampled_arrivals.hpp"
#include "run/option_table.hpp"
#include "util/atomic_write.hpp"
#include "util/json_fields.hpp"
#include "util/sha256.hpp"
#include "util/text_file.hpp"

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

using detail::bad_field;
using detail::fail_field;
using detail::only_keys;

template <class T>
void read_field(const json& object, const std::string& path, std::string_view key, T& out) {
  const auto it = object.find(std::string(key));
  if (it == object.end()) return;  // missing: keep the default
  const std::string where = detail::child_field(path, key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean())
      fail_field(where, std::string("expected true or false, got ") + it->type_name());
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string())
      fail_field(where, std::string("expected a string, got ") + it->type_name());
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!it->is_number())
      fail_field(where, std::string("expected a number, got ") + it->type_name());
  } else {
    if (!it->is_number_unsigned()) {
      fail_field(where, std::string("expected a non-negative integer, got ") + it->type_name());
    }
    if (it->template get<std::uint64_t>() > std::numeric_limits<T>::max())
      fail_field(where, "too large");
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

// `options` with one session value set, after checking its JSON type and the option's range.
engine_options with_option(engine_options options, const option_spec& spec, const json& value,
                           const std::string& path) {
  option_value v;
  switch (spec.kind) {
    case option_kind::count:
    case option_kind::byte_size:
      if (!value.is_number_unsigned()) {
        fail_field(path, std::string("expected a non-negative integer, got ") + value.type_name());
      }
      v = value.get<std::uint64_t>();
      break;
    case option_kind::real:
      if (!value.is_number())
        fail_field(path, std::string("expected a number, got ") + value.type_name());
      v = value.get<double>();
      break;
    case option_kind::flag:
      if (!value.is_boolean())
        fail_field(path, std::string("expected true or false, got ") + value.type_name());
      v = value.get<bool>();
      break;
    case option_kind::choice:
    case option_kind::text:
      if (!value.is_string())
        fail_field(path, std::string("expected a string, got ") + value.type_name());
      v = value.get<std::string>();
      break;
  }
  if (auto why = check_option_value(spec, v)) fail_field(path, why->substr(why->find(": ") + 2));
  spec.set(options, v);
  return options;
}

policy_config parse_policy(const json& j, const std::string& path) {
  auto parsed = parse_policy_config(j.dump(), config_format::json, path);
  if (!parsed) throw bad_field(parsed.error());
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
    if (!j.contains("policy")) fail_field(path + ".policy", "missing");
    c.command = reconfigure_command{parse_policy(j.at("policy"), path + ".policy")};
  } else {
    fail_field(path + ".type", "unknown command '" + type + "'");
  }
  return c;
}

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void read_digest(const json& object, const std::string& path, std::string_view key, std::string& out) {
  read_field(object, path, key, out);
  if (object.contains(std::string(key)) && !is_sha256_hex(out)) {
    fail_field(path + "." + std::string(key), "expected 64 lowercase hexadecimal digits");
  }
}

// A relative `file` named from `folder`, as the working directory sees it; others as they are.
std::string from_folder(const std::filesystem::path& folder, const std::string& file) {
  if (folder.empty() || std::filesystem::path(file).is_absolute()) return file;
  return (folder / file).string();
}

// `file` (relative to the working directory, or absolute) as a session at `session` names it:
// relative to the session's folder, so that a replay from any directory finds it. An absolute
// path stays absolute. Links in the folders are resolved first so that ".." climbs real folders.
std::string relative_to_session(const std::string& file, const std::filesystem::path& session) {
  namespace fs = std::filesystem;
  const fs::path p(file);
  if (p.is_absolute()) return file;
  std::error_code ec;
  const fs::path where = fs::weakly_canonical(fs::absolute(p, ec).parent_path(), ec) / p.filename();
  if (ec) return file;
  const fs::path folder = fs::weakly_canonical(fs::absolute(session, ec).parent_path(), ec);
  if (ec) return file;
  const fs::path relative = where.lexically_relative(folder);
  return relative.empty() ? where.string() : relative.string();
}

}  // namespace

std::string session_to_json(const run_description& s) {
  json j;
  j["kvscope_session"] = session_format_version;
  j["load"] = {{"spec", s.load_spec},
               {"format", std::string(format_name(s.format))},
               {"skip_bad_rows", s.skip_bad_rows}};
  // Written only when the arrivals are scaled, so files of unscaled runs are as before.
  if (s.arrival_time_scale != 1.0) j["load"]["arrival_time_scale"] = s.arrival_time_scale;
  // Likewise only when resampled: the arrivals are the load's, so they are kept with it.
  if (s.options.arrivals != "keep") j["load"]["arrivals"] = s.options.arrivals;
  // Written only for a trace file, so sessions of generated loads are as before.
  if (!s.trace_sha256.empty()) j["load"]["trace_sha256"] = s.trace_sha256;
  // Written only for model and GPU files, so sessions naming built-ins are as before.
  if (!s.model_sha256.empty()) j["files"]["model_sha256"] = s.model_sha256;
  if (!s.gpu_sha256.empty()) j["files"]["gpu_sha256"] = s.gpu_sha256;
  auto& options = j["options"];
  options = json::object();
  for (const auto& spec : option_table()) {
    if (!(spec.places & in_session) || !option_recorded(spec, s.options)) continue;
    std::visit([&](const auto& v) { options[std::string(spec.key)] = v; }, spec.get(s.options));
  }
  options["policy"] = policy_json(s.options.policy);
  j["commands"] = json::array();
  for (const auto& c : s.commands) j["commands"].push_back(command_json(c));
  j["steps"] = s.steps;
  return j.dump(2) + "\n";
}

// session_from_json, with the relative file paths of format 3 on read from `folder` (the
// session's own; empty: as they are). They are resolved before the options are checked, since
// checking a model or GPU file reads it.
static expected<run_description, std::string> parse_session(std::string_view text, std::string_view source,
                                                            const std::filesystem::path& folder) {
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
  return detail::with_source(source, [&]() -> run_description {
    only_keys(j, "", {"kvscope_session", "load", "files", "options", "commands", "steps"});
    int version = 0;
    read_field(j, "", "kvscope_session", version);
    // Version 1 (kvscope 0.1) had no timing, GPU or SLO keys: their defaults are what it ran.
    // Version 2 named its files relative to the working directory (see read_session).
    if (version < 1 || version > session_format_version) {
      fail_field("kvscope_session", "expected version 1 to " +
                                        std::to_string(session_format_version) + ", got " +
                                        std::to_string(version));
    }
    run_description s;
    if (!j.contains("load")) fail_field("load", "missing");
    const auto& load = j.at("load");
    only_keys(load, "load", {"spec", "format", "skip_bad_rows", "arrival_time_scale", "arrivals", "trace_sha256"});
    read_field(load, "load", "spec", s.load_spec);
    if (s.load_spec.empty()) fail_field("load.spec", "missing or empty");
    // Version 2 and before named files from the working directory: all a replay can assume.
    const std::filesystem::path base = version >= 3 ? folder : std::filesystem::path();
    if (const std::string file = load_file_of(s.load_spec); !file.empty()) {
      s.load_spec = s.load_spec.substr(0, s.load_spec.size() - file.size()) + from_folder(base, file);
    }
    std::string format = "auto";
    read_field(load, "load", "format", format);
    const auto parsed_format = parse_load_format(format);
    if (!parsed_format) fail_field("load.format", "unknown format '" + format + "'");
    s.format = *parsed_format;
    read_field(load, "load", "skip_bad_rows", s.skip_bad_rows);
    read_field(load, "load", "arrival_time_scale", s.arrival_time_scale);
    if (!(s.arrival_time_scale > 0) || !std::isfinite(s.arrival_time_scale)) {
      fail_field("load.arrival_time_scale", "expected a positive number");
    }
    // Sessions written before arrivals could be resampled have none: they kept the load's own.
    read_field(load, "load", "arrivals", s.options.arrivals);
    if (const auto process = parse_arrival_process(s.options.arrivals); !process) {
      fail_field("load.arrivals", process.error());
    }
    read_digest(load, "load", "trace_sha256", s.trace_sha256);
    if (j.contains("files")) {
      const auto& files = j.at("files");
      only_keys(files, "files", {"model_sha256", "gpu_sha256"});
      read_digest(files, "files", "model_sha256", s.model_sha256);
      read_digest(files, "files", "gpu_sha256", s.gpu_sha256);
    }

    if (j.contains("options")) {
      const auto& o = j.at("options");
      auto& e = s.options;
      if (!o.is_object())
        fail_field("options", std::string("expected an object, got ") + o.type_name());
      for (const auto& [key, value] : o.items()) {
        if (key == "policy") continue;
        const auto* spec = find_option(key);
        if (!spec || !(spec->places & in_session) || spec->key != key)
          fail_field("options." + key, "unknown key");
        if ((key == "model" || key == "gpu") && value.is_string() &&
            detail::names_json_file(value.get<std::string>())) {
          e = with_option(e, *spec, from_folder(base, value.get<std::string>()), "options." + key);
        } else {
          e = with_option(e, *spec, value, "options." + key);
        }
      }
      if (o.contains("policy")) e.policy = parse_policy(o.at("policy"), "options.policy");
      // Resolved here once, kept for the run: a model or GPU file is read once per replay.
      auto setup = resolve_setup(e);
      if (!setup) fail_field("options", setup.error());
      s.setup = std::make_shared<const engine_setup>(std::move(*setup));
    }
    if (j.contains("commands")) {
      const auto& commands = j.at("commands");
      if (!commands.is_array()) fail_field("commands", "expected an array");
      for (std::size_t i = 0; i < commands.size(); ++i) {
        s.commands.push_back(parse_command(commands[i], "commands[" + std::to_string(i) + "]"));
      }
    }
    read_field(j, "", "steps", s.steps);
    return s;
  });
}

expected<run_description, std::string> session_from_json(std::string_view text, std::string_view source) {
  return parse_session(text, source, {});
}

expected<run_description, std::string> read_session(const std::filesystem::path& path) {
  return detail::read_and_parse(path, [&](std::string_view text, std::string_view source) {
    return parse_session(text, source, path.parent_path());
  });
}

expected<std::string, std::string> session_file_text(const std::filesystem::path& path, run_description s) {
  std::string unreadable;
  for_each_input_file(s, [&](std::string_view, std::string& file, std::string& sha256) {
    // A replay checks the file against this; a session replayed with --force keeps its own.
    if (sha256.empty() && unreadable.empty()) {
      auto digest = sha256_file(file);
      if (digest) sha256 = std::move(*digest);
      else unreadable = digest.error();
    }
    file = relative_to_session(file, path);
  });
  if (!unreadable.empty()) return unexpected{unreadable};
  return session_to_json(s);
}

expected<void, std::string> write_session(const std::filesystem::path& path, run_description s) {
  auto text = session_file_text(path, std::move(s));
  if (!text) return unexpected{text.error()};
  return write_file_atomically(path, *text);
}

}  // namespace kvscope
