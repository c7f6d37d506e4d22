#include "load/generator_spec.hpp"

#include <cstdio>
#include <cstring>
#include <cmath>
#include <limits>

#include "load/numbers.hpp"
#include "load/request.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

constexpr std::string_view known_keys =
    "rate, burstiness, concurrency, prompt, output, duration, count, seed, prefix_groups, prefix_len, "
    "prefix_zipf, block";

std::string problem(std::string_view key, std::string_view value, std::string_view what) {
  return "gen spec: " + std::string(key) + "='" + std::string(value) + "': " + std::string(what);
}

// A finite number in [lo, hi] (lo itself excluded when `open_low`).
expected<double, std::string> real(std::string_view key, std::string_view value, double lo,
                                   double hi, bool open_low, std::string_view range) {
  double v = 0;
  const number_error e = parse_finite(value, v);
  if (e != number_error::none) return unexpected{problem(key, value, describe(e))};
  if (v < lo || v > hi || (open_low && v == lo)) {
    return unexpected{problem(key, value, "must be in " + std::string(range))};
  }
  return v;
}

expected<std::uint64_t, std::string> whole(std::string_view key, std::string_view value,
                                           std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  const number_error e = parse_whole(value, hi, v);
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (e == number_error::too_large || (e == number_error::none && v < lo) ||
      e == number_error::negative) {
    return unexpected{problem(key, value, "must be a whole number in " + range)};
  }
  if (e != number_error::none) return unexpected{problem(key, value, describe(e))};
  return v;
}

// Sets the field `key` names from `value`; the error names the key and what it takes.
expected<void, std::string> set_field(generator_spec& spec, std::string_view key, std::string_view value) {
  auto fail = [](std::string message) { return unexpected<std::string>{std::move(message)}; };
  if (key == "rate") {
    auto v = real(key, value, 0, 1e9, true, "(0, 1e9] requests per second");
    if (!v) return fail(v.error());
    spec.rate = *v;
  } else if (key == "concurrency") {
    auto v = whole(key, value, 1, 1u << 20);
    if (!v) return fail(v.error());
    spec.concurrency = static_cast<std::uint32_t>(*v);
  } else if (key == "burstiness") {
    auto v = real(key, value, 0.01, 1000, false, "[0.01, 1000]");
    if (!v) return fail(v.error());
    spec.burstiness = *v;
  } else if (key == "prompt" || key == "output") {
    auto d = parse_length_dist(value);
    if (!d) return fail("gen spec: " + std::string(key) + ": " + d.error());
    (key == "prompt" ? spec.prompt : spec.output) = *d;
  } else if (key == "duration") {
    // No later than a request may arrive (load/request.hpp): simulated time stays exact.
    auto v = real(key, value, 0, max_arrival_s, true, "(0, 1e9] seconds");
    if (!v) return fail(v.error());
    spec.duration_s = *v;
  } else if (key == "count") {
    auto v = whole(key, value, 1, std::uint64_t{1} << 53);
    if (!v) return fail(v.error());
    spec.count = *v;
  } else if (key == "seed") {
    auto v = whole(key, value, 0, std::numeric_limits<std::uint64_t>::max());
    if (!v) return fail(v.error());
    spec.seed = *v;
  } else if (key == "prefix_groups") {
    auto v = whole(key, value, 1, 1u << 24);
    if (!v) return fail(v.error());
    spec.prefix_groups = static_cast<std::uint32_t>(*v);
  } else if (key == "prefix_len") {
    auto v = whole(key, value, 1, max_generated_tokens);
    if (!v) return fail(v.error());
    spec.prefix_tokens = static_cast<std::uint32_t>(*v);
  } else if (key == "prefix_zipf") {
    auto v = real(key, value, 0, 100, true, "(0, 100]");
    if (!v) return fail(v.error());
    spec.prefix_zipf = *v;
  } else if (key == "block") {
    auto v = whole(key, value, 1, 1u << 16);
    if (!v) return fail(v.error());
    spec.block_size = static_cast<std::uint32_t>(*v);
  } else {
    return fail("gen spec: unknown key '" + std::string(key) + "' (known: " + std::string(known_keys) + ")");
  }
  return {};
}

// What no single key can check: the keys given together (`given`: ",key,key,...,").
expected<void, std::string> check_keys_together(const generator_spec& spec, const std::string& given) {
  const auto has = [&](const char* key) { return given.find("," + std::string(key) + ",") != std::string::npos; };
  if (spec.concurrency) {
    // A closed loop's pace is the server's: an arrival rate or a duration would contradict it.
    for (const char* open_loop : {"rate", "burstiness", "duration"}) {
      if (has(open_loop)) return unexpected{"gen spec: concurrency= is a closed loop; drop " + std::string(open_loop) + "="};
    }
    if (!spec.count) return unexpected{std::string("gen spec: concurrency= needs count= (requests in total)")};
  }
  if (!spec.duration_s && !spec.count) {
    return unexpected{std::string("gen spec: give duration= (seconds) or count= (requests), or both")};
  }
  // Arrivals end at max_arrival_s whatever is asked (generator.hpp); a count that would take
  // longer at this rate would be cut short, which a spec must say itself with duration=.
  if (spec.count && !spec.duration_s && !spec.concurrency &&
      static_cast<double>(*spec.count) / spec.rate > max_arrival_s) {
    char takes[32];
    std::snprintf(takes, sizeof takes, "%.3g", static_cast<double>(*spec.count) / spec.rate);
    return unexpected{"gen spec: count=" + std::to_string(*spec.count) + " at rate=" + shortest(spec.rate) +
                      " takes about " + takes + " s, beyond the 1e9 s a load may last; give a higher rate or duration="};
  }
  if (spec.prefix_groups > 0 && !has("prefix_len")) {
    return unexpected{std::string("gen spec: prefix_groups needs prefix_len= (shared prefix tokens)")};
  }
  if (spec.prefix_groups == 0 && (has("prefix_len") || has("prefix_zipf"))) {
    return unexpected{std::string("gen spec: prefix_len and prefix_zipf need prefix_groups=")};
  }
  return {};
}

}  // namespace

expected<generator_spec, std::string> parse_generator_spec(std::string_view text) {
  if (text.starts_with("gen:")) text.remove_prefix(4);
  generator_spec spec;
  std::string seen = ",";  // keys given so far, for duplicate detection
  if (text.empty()) return unexpected{std::string("gen spec is empty: give at least duration= or count=")};

  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) {
      return unexpected{std::string("gen spec: trailing ',' (nothing after it)")};
    }
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      return unexpected{"gen spec: '" + std::string(item) + "' is not key=value"};
    }
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (seen.find("," + std::string(key) + ",") != std::string::npos) {
      return unexpected{"gen spec: key '" + std::string(key) + "' given twice"};
    }
    seen += std::string(key) + ",";
    if (value.empty()) return unexpected{problem(key, value, "has no value")};
    if (auto set = set_field(spec, key, value); !set) return unexpected{set.error()};
  }
  if (auto together = check_keys_together(spec, seen); !together) return unexpected{together.error()};
  return spec;
}

std::string to_string(const generator_spec& spec) {
  std::string out = spec.concurrency ? "gen:concurrency=" + std::to_string(*spec.concurrency)
                                     : "gen:rate=" + shortest(spec.rate) + ",burstiness=" + shortest(spec.burstiness);
  out += ",prompt=" + to_string(spec.prompt) + ",output=" + to_string(spec.output);
  if (spec.duration_s) out += ",duration=" + shortest(*spec.duration_s);
  if (spec.count) out += ",count=" + std::to_string(*spec.count);
  out += ",seed=" + std::to_string(spec.seed);
  if (spec.prefix_groups > 0) {
    out += ",prefix_groups=" + std::to_string(spec.prefix_groups) +
           ",prefix_len=" + std::to_string(spec.prefix_tokens) +
           ",prefix_zipf=" + shortest(spec.prefix_zipf);
  }
  out += ",block=" + std::to_string(spec.block_size);
  return out;
}

}  // namespace kvscope
