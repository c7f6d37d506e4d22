#include "fuzz_bodies.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "io/policy_file.hpp"
#include "load/generator.hpp"
#include "load/load_error.hpp"
#include "load/native_format.hpp"
#include "load/open_load.hpp"

namespace kvscope::fuzz {
namespace {

using detail::broken;

// Reads the input as `format`, strictly and then skipping bad rows; checks what every load
// promises: ids in order, times from 0 and never decreasing, prefix fields consistent. When the
// load reads, records it to the native format and checks that reading that back is identical.
void read_load(load_format format, std::string_view text) {
  for (bool skip : {false, true}) {
    read_options options;
    options.skip_bad_rows = skip;
    try {
      auto source = open_load_text("fuzz", text, format, options);
      std::string native = native_header_line("fuzz");
      request r;
      double last = 0;
      std::uint64_t n = 0;
      while (source->next(r)) {
        if (n == 0 && r.arrival_s != 0) broken("first request not at 0");
        if (r.arrival_s < last) broken("time went back");
        if (r.prefix_hashes.empty() != (r.prefix_block_size == 0)) broken("prefix fields disagree");
        if (source->format_name() != "native" && r.id != n) broken("ids not 0, 1, 2, ...");
        last = r.arrival_s;
        ++n;
        append_native_line(native, r);
      }
      const auto& c = source->counters();
      if (c.requests != n || c.rows != n + c.skipped_rows()) broken("counters disagree");
      if (!skip && c.bad_rows != 0) broken("bad rows counted without skipping");
      const double p = source->progress();
      if (!(p >= 0 && p <= 1)) broken("progress out of [0, 1]");

      auto replay = open_load_text("replay", native, load_format::native, {});
      auto again = open_load_text("fuzz", text, format, options);
      request a, b;
      while (again->next(a)) {
        if (!replay->next(b) || !(a == b)) broken("native replay differs");
      }
      if (replay->next(b)) broken("native replay has extra requests");
    } catch (const load_error&) {
      // Refusing bad input with a message is the expected outcome for most inputs.
    }
  }
}

void parse_spec(std::string_view text) {
  auto spec = parse_generator_spec(text);
  if (!spec) return;
  const std::string canonical = to_string(*spec);
  auto again = parse_generator_spec(canonical);
  if (!again || !(*again == *spec)) broken("gen spec does not round-trip");
  // A few requests of whatever it asks for: must not hang or crash.
  generator_source source(*spec);
  request r;
  double last = 0;
  for (int i = 0; i < 200 && source.next(r); ++i) {
    if (r.arrival_s < last || r.prompt_tokens < 1 || r.output_tokens < 1) broken("bad generated request");
    last = r.arrival_s;
  }
}

// A policy config parsed from `text` reads back unchanged from what the writers make of it.
void check_policy_round_trip(const policy_config& config, std::string_view text) {
  if (validate(config)) broken("policy parsed but does not validate");
  // Provenance strings take any bytes the input has: the writers must still produce documents
  // their own reader accepts (TOML escapes non-ASCII, JSON replaces bytes that are not UTF-8).
  policy_provenance provenance;
  provenance.load = std::string(text.substr(0, 64));
  provenance.model = std::string(text.substr(text.size() / 2, 32));
  provenance.metrics = {{provenance.model, 1.5}, {"peak_usage", 0.25},
                        {std::string(text.substr(0, 8)), 2.5}};
  for (auto format : {config_format::json, config_format::toml}) {
    const policy_provenance* with = &provenance;
    for (const policy_provenance* p : {static_cast<const policy_provenance*>(nullptr), with}) {
      const std::string written = serialize_policy_config(config, format, p);
      const auto back = parse_policy_config(written, format, "written");
      if (!back) {
        std::fprintf(stderr, "%s\n%s\n", back.error().c_str(), written.c_str());
        broken("written policy does not read back");
      }
      if (!(*back == config)) broken("written policy reads back different");
    }
  }
}

// The input as a JSON and as a TOML policy file: a config or an error message, nothing else.
void parse_policy(std::string_view text) {
  for (auto format : {config_format::json, config_format::toml}) {
    const auto config = parse_policy_config(text, format, "fuzz");
    if (!config) {
      if (config.error().rfind("fuzz", 0) != 0) broken("policy error does not name the source");
      continue;
    }
    check_policy_round_trip(*config, text);
  }
}

}  // namespace

void run_one(target t, const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  switch (t) {
    case target::azure: return read_load(load_format::azure, text);
    case target::burstgpt: return read_load(load_format::burstgpt, text);
    case target::vidur: return read_load(load_format::vidur, text);
    case target::mooncake: return read_load(load_format::mooncake, text);
    case target::native: return read_load(load_format::native, text);
    case target::detect: return read_load(load_format::automatic, text);
    case target::gen_spec: return parse_spec(text);
    case target::policy: return parse_policy(text);
  }
}

void detail::broken(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

}  // namespace kvscope::fuzz
