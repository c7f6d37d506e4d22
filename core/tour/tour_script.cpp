#include "tour/tour_script.hpp"

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "load/open_load.hpp"
#include "run/option_table.hpp"
#include "tour/tour_state.hpp"
#include "util/json_fields.hpp"

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

using detail::fail_field;
using detail::child_field;
using detail::only_keys;

std::string item(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string as_string(const json& v, const std::string& path) {
  if (!v.is_string()) fail_field(path, std::string("expected a string, got ") + v.type_name());
  return v.get<std::string>();
}

std::uint64_t as_count(const json& v, const std::string& path,
                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  if (!v.is_number_unsigned())
    fail_field(path, std::string("expected a non-negative integer, got ") + v.type_name());
  const auto n = v.get<std::uint64_t>();
  if (n > max) fail_field(path, "at most " + std::to_string(max));
  return n;
}

double as_number(const json& v, const std::string& path) {
  if (!v.is_number()) fail_field(path, std::string("expected a number, got ") + v.type_name());
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail_field(path, "expected a finite number");
  return d;
}

bool as_bool(const json& v, const std::string& path) {
  if (!v.is_boolean())
    fail_field(path, std::string("expected true or false, got ") + v.type_name());
  return v.get<bool>();
}

const json& as_array(const json& v, const std::string& path) {
  if (!v.is_array()) fail_field(path, std::string("expected an array, got ") + v.type_name());
  return v;
}

precision as_level(const json& v, const std::string& path) {
  const std::string text = as_string(v, path);
  const auto p = parse_precision(text);
  if (!p) fail_field(path, "unknown level '" + text + "' (fp16, q8, fp8, q4)");
  return *p;
}

void set_engine_option(engine_options& o, const option_spec& spec, const json& v, const std::string& path) {
  option_value value;
  switch (spec.kind) {
    case option_kind::count:
    case option_kind::byte_size: value = as_count(v, path); break;
    case option_kind::real: value = as_number(v, path); break;
    case option_kind::flag: value = as_bool(v, path); break;
    case option_kind::choice:
    case option_kind::text: value = as_string(v, path); break;
  }
  if (auto why = check_option_value(spec, value))
    fail_field(path, why->substr(why->find(": ") + 2));
  spec.set(o, value);
}

// The tour's defaults: a pool a projector can show block by block.
engine_options tour_defaults() {
  engine_options o;
  o.model = "tiny";
  o.block_size = 4;
  o.tail_tokens = 8;
  o.payload = payload_mode::data;
  o.quality_every = 1;
  o.budget_bytes = 24 * 4096;
  return o;
}

engine_options parse_engine(const json& j) {
  engine_options o = tour_defaults();
  if (!j.is_object()) fail_field("engine", std::string("expected an object, got ") + j.type_name());
  std::optional<std::uint64_t> frames;
  for (const auto& [key, value] : j.items()) {
    const std::string path = child_field("engine", key);
    if (key == "budget_frames") {
      frames = as_count(value, path, 1u << 20);
      if (*frames == 0) fail_field(path, "at least 1");
      continue;
    }
    const auto* spec = find_option(key);
    if (!spec || !(spec->places & in_session) || spec->key != key) {
      fail_field(path,
                 "unknown key (budget_frames, or a session option such as block_size, tail_tokens, "
                 "payload)");
    }
    set_engine_option(o, *spec, value, path);
  }
  if (frames) {
    if (j.contains("budget_bytes"))
      fail_field("engine.budget_frames", "give budget_frames or budget_bytes, not both");
    const auto shape = find_model_shape(o.model);
    if (!shape) fail_field("engine.model", "unknown model '" + o.model + "'");
    if (__builtin_mul_overflow(*frames, shape->frame_bytes(o.block_size), &o.budget_bytes)) {
      fail_field("engine.budget_frames",
                 "the pool's bytes do not fit in 64 bits for model '" + o.model + "'");
    }
  }
  return o;
}

policy_config parse_policy(const json& j) {
  only_keys(j, "policy", {"q8_threshold", "q4_threshold", "hysteresis", "ewma_alpha", "min_level", "max_level"});
  policy_config p;
  for (auto [key, field] : {std::pair{"q8_threshold", &policy_config::q8_threshold},
                            {"q4_threshold", &policy_config::q4_threshold},
                            {"hysteresis", &policy_config::hysteresis},
                            {"ewma_alpha", &policy_config::ewma_alpha}}) {
    if (j.contains(key)) p.*field = static_cast<float>(as_number(j.at(key), child_field("policy", key)));
  }
  if (j.contains("min_level")) p.min_level = as_level(j.at("min_level"), "policy.min_level");
  if (j.contains("max_level")) p.max_level = as_level(j.at("max_level"), "policy.max_level");
  if (auto why = validate(p)) fail_field("policy", *why);
  return p;
}

request parse_request(const json& j, const std::string& path, std::uint64_t id, std::uint32_t block_size) {
  only_keys(j, path, {"name", "arrival_s", "prompt_tokens", "output_tokens", "prefix"});
  request r;
  r.id = id;
  if (j.contains("name")) r.label = as_string(j.at("name"), child_field(path, "name"));
  if (j.contains("arrival_s")) {
    r.arrival_s = as_number(j.at("arrival_s"), child_field(path, "arrival_s"));
    if (r.arrival_s < 0) fail_field(child_field(path, "arrival_s"), "must not be negative");
  }
  if (!j.contains("prompt_tokens")) fail_field(child_field(path, "prompt_tokens"), "missing");
  r.prompt_tokens = static_cast<std::uint32_t>(as_count(j.at("prompt_tokens"), child_field(path, "prompt_tokens"), 1u << 24));
  if (r.prompt_tokens == 0) fail_field(child_field(path, "prompt_tokens"), "at least 1");
  if (j.contains("output_tokens")) {
    r.output_tokens = static_cast<std::uint32_t>(as_count(j.at("output_tokens"), child_field(path, "output_tokens"), 1u << 24));
  }
  if (j.contains("prefix")) {
    // The content of prompt blocks 0..i, as vLLM's chained block hashes: equal ids, shared blocks.
    const json& prefix = as_array(j.at("prefix"), child_field(path, "prefix"));
    for (std::size_t i = 0; i < prefix.size(); ++i) {
      r.prefix_hashes.push_back(as_count(prefix[i], item(child_field(path, "prefix"), i)));
    }
    if (!r.prefix_hashes.empty()) r.prefix_block_size = block_size;
  }
  return r;
}

void check_request_name(const std::string& name, const std::vector<request>& requests, const std::string& path) {
  bool known = requests.empty();  // a generated load: any id may come
  for (const request& r : requests) known = known || request_name(r) == name;
  if (!known) fail_field(path, "no request named '" + name + "'");
}

tour_test parse_test(std::string_view key, const json& value, const std::string& path) {
  tour_test t;
  std::string name(key);
  if (name == "level") {
    t.name = "level";
    t.op = tour_test::compare::equal;
    t.value = ordinal(as_level(value, path));
    return t;
  }
  if (name == "request_running") {
    t.name = "request_running";
    t.op = tour_test::compare::equal;
    t.request = as_string(value, path);
    return t;
  }
  if (name.starts_with("new_")) {
    t.since_previous = true;
    name = name.substr(4);
  }
  if (name.ends_with("_at_most")) {
    t.op = tour_test::compare::at_most;
    name = name.substr(0, name.size() - 8);
  }
  const tour_quantity* q = find_tour_quantity(name);
  if (!q || !q->value) {
    fail_field(
        path,
        "unknown condition (a quantity such as preemptions, prefix_hits, free_frames, "
        "q4_blocks, optionally new_... or ..._at_most; level; request_running; see docs/tour.md)");
  }
  t.name = name;
  t.value = as_number(value, path);
  return t;
}

tour_condition parse_condition(const json& j, const std::string& path, const std::vector<request>& requests) {
  if (!j.is_object()) fail_field(path, std::string("expected an object, got ") + j.type_name());
  tour_condition c;
  for (const auto& [key, value] : j.items()) {
    if (key == "max_steps") {
      c.max_steps = as_count(value, child_field(path, key), 1u << 24);
    } else {
      c.tests.push_back(parse_test(key, value, child_field(path, key)));
      if (!c.tests.back().request.empty()) check_request_name(c.tests.back().request, requests, child_field(path, key));
    }
  }
  if (c.tests.empty()) fail_field(path, "no condition to wait for");
  return c;
}

tour_highlight parse_highlight(const json& j, const std::string& path,
                               const std::vector<request>& requests) {
  only_keys(j, path, {"requests", "blocks", "levels", "cached", "shared"});
  tour_highlight h;
  if (j.contains("requests")) {
    const std::string p = child_field(path, "requests");
    const json& list = as_array(j.at("requests"), p);
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string name = list[i].is_number_unsigned() ? std::to_string(list[i].get<std::uint64_t>())
                                                      : as_string(list[i], item(p, i));
      check_request_name(name, requests, item(p, i));
      h.requests.push_back(std::move(name));
    }
  }
  if (j.contains("blocks")) {
    const std::string p = child_field(path, "blocks");
    const json& list = as_array(j.at("blocks"), p);
    for (std::size_t i = 0; i < list.size(); ++i) {
      h.blocks.push_back(static_cast<std::uint32_t>(as_count(list[i], item(p, i), no_block - 1)));
    }
  }
  if (j.contains("levels")) {
    const std::string p = child_field(path, "levels");
    const json& list = as_array(j.at("levels"), p);
    for (std::size_t i = 0; i < list.size(); ++i) h.levels.push_back(as_level(list[i], item(p, i)));
  }
  if (j.contains("cached")) h.cached = as_bool(j.at("cached"), child_field(path, "cached"));
  if (j.contains("shared")) h.shared = as_bool(j.at("shared"), child_field(path, "shared"));
  return h;
}

tour_step parse_step(const json& j, const std::string& path, const std::vector<request>& requests,
                     std::size_t index) {
  only_keys(j, path, {"title", "narration", "steps", "until", "highlight", "show"});
  tour_step s;
  s.title = j.contains("title") ? as_string(j.at("title"), child_field(path, "title"))
                                : "Step " + std::to_string(index + 1);
  if (!j.contains("narration")) fail_field(child_field(path, "narration"), "missing");
  s.narration = as_string(j.at("narration"), child_field(path, "narration"));
  if (s.narration.empty()) fail_field(child_field(path, "narration"), "empty");
  if (j.contains("steps") == j.contains("until")) {
    fail_field(path,
               "give exactly one of \"steps\" (engine steps to run) and \"until\" (a condition)");
  }
  if (j.contains("steps")) s.steps = as_count(j.at("steps"), child_field(path, "steps"), 1u << 24);
  if (j.contains("until")) s.until = parse_condition(j.at("until"), child_field(path, "until"), requests);
  if (j.contains("highlight")) s.highlight = parse_highlight(j.at("highlight"), child_field(path, "highlight"), requests);
  if (j.contains("show")) {
    const std::string p = child_field(path, "show");
    const json& list = as_array(j.at("show"), p);
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string name = as_string(list[i], item(p, i));
      const std::string_view base = std::string_view(name).starts_with("new_") ? std::string_view(name).substr(4) : name;
      const tour_quantity* q = find_tour_quantity(base);
      if (!q || (base != name && !q->value))
        fail_field(item(p, i), "unknown quantity '" + name + "' (see docs/tour.md)");
      s.show.push_back(std::move(name));
    }
  }
  return s;
}

tour_script parse(const json& j) {
  only_keys(j, "", {"kvscope_tour", "title", "engine", "policy", "requests", "load", "steps"});
  if (j.contains("kvscope_tour") && as_count(j.at("kvscope_tour"), "kvscope_tour") != tour_format_version) {
    fail_field("kvscope_tour", "expected version " + std::to_string(tour_format_version));
  }
  tour_script t;
  if (j.contains("title")) t.title = as_string(j.at("title"), "title");
  t.options = j.contains("engine") ? parse_engine(j.at("engine")) : tour_defaults();
  if (j.contains("policy")) t.options.policy = parse_policy(j.at("policy"));
  if (auto why = validate(t.options)) fail_field("engine", *why);
  if (j.contains("requests") == j.contains("load")) {
    fail_field("requests", "give exactly one of \"requests\" (a list) and \"load\" (a gen: spec)");
  }
  if (j.contains("load")) {
    t.load_spec = as_string(j.at("load"), "load");
    if (!t.load_spec.starts_with("gen:"))
      fail_field("load", "expected a \"gen:...\" spec (docs/load-formats.md)");
  } else {
    const json& list = as_array(j.at("requests"), "requests");
    if (list.empty()) fail_field("requests", "empty");
    for (std::size_t i = 0; i < list.size(); ++i) {
      request r = parse_request(list[i], item("requests", i), i, t.options.block_size);
      if (i > 0 && r.arrival_s < t.requests.back().arrival_s) {
        fail_field(item("requests", i) + ".arrival_s",
                   "earlier than the request before it (list them in arrival order)");
      }
      for (const request& other : t.requests) {
        if (request_name(other) == request_name(r))
          fail_field(item("requests", i) + ".name",
                     "a second request named '" + request_name(r) + "'");
      }
      t.requests.push_back(std::move(r));
    }
  }
  if (!j.contains("steps")) fail_field("steps", "missing");
  const json& steps = as_array(j.at("steps"), "steps");
  if (steps.empty()) fail_field("steps", "empty");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    t.steps.push_back(parse_step(steps[i], item("steps", i), t.requests, i));
  }
  return t;
}

}  // namespace

std::string request_name(const request& r) { return r.label.empty() ? std::to_string(r.id) : r.label; }

expected<tour_script, std::string> parse_tour_script(std::string_view text, std::string_view source) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // a parse error, or a number past a double (1e400)
    return unexpected{std::string(source) + ": invalid JSON: " + e.what()};
  }
  try {
    return detail::with_source(source, [&] {
      tour_script t = parse(j);
      t.source = std::string(source);
      if (!t.load_spec.empty())
        (void)open_load(t.load_spec, load_format::automatic, read_options{});
      return t;
    });
  } catch (const std::exception& e) {  // a gen: spec the generator refuses
    return unexpected{std::string(source) + ": load: " + e.what()};
  }
}

expected<tour_script, std::string> read_tour_script(const std::filesystem::path& path) {
  return detail::read_and_parse(path, parse_tour_script);
}

tour_script builtin_tour() {
  auto t = parse_tour_script(builtin_tour_json(), "built-in tour");
  if (!t) throw std::logic_error(t.error());  // tests check it parses
  return std::move(*t);
}

}  // namespace kvscope
