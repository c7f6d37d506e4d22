#include "load/vllm_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "load/load_error.hpp"
#include "load/random.hpp"
#include "util/json_fields.hpp"

namespace kvscope {
namespace {

using json = nlohmann::json;

using detail::bad_field;
using detail::fail_field;

const json& need(const json& j, std::string_view field) {
  const auto it = j.find(std::string(field));
  if (it == j.end() || it->is_null())
    fail_field(field, "missing (the benchmark result must have it)");
  return *it;
}

double number(const json& v, std::string_view field) {
  // vLLM writes an infinite request rate as the string "inf".
  if (v.is_string() && (v.get<std::string>() == "inf" || v.get<std::string>() == "Infinity")) {
    return std::numeric_limits<double>::infinity();
  }
  if (!v.is_number()) fail_field(field, std::string("expected a number, got ") + v.type_name());
  return v.get<double>();
}

std::uint64_t count(const json& v, std::string_view field) {
  if (!v.is_number_unsigned())
    fail_field(field, std::string("expected a non-negative integer, got ") + v.type_name());
  return v.get<std::uint64_t>();
}

std::vector<std::uint32_t> lengths(const json& v, std::string_view field) {
  if (!v.is_array()) fail_field(field, std::string("expected an array, got ") + v.type_name());
  std::vector<std::uint32_t> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string where = std::string(field) + "[" + std::to_string(i) + "]";
    const auto n = count(v[i], where);
    if (n > max_request_tokens) fail_field(where, "more tokens than a request may hold");
    out.push_back(static_cast<std::uint32_t>(n));
  }
  return out;
}

// vLLM 0.5/0.6's benchmark_serving.py (and the forks of it that saved LambdaLabsML's results)
// wrote mean_latency_ms, median_latency_ms, std_latency_ms and pNN_latency_ms for what later
// versions call *_e2el_ms: give them the later names too, unless the file has those.
void add_e2el_names(std::map<std::string, double>& ms) {
  std::map<std::string, double> renamed;
  for (const auto& [key, value] : ms) {
    constexpr std::string_view tail = "_latency_ms";
    if (!key.ends_with(tail)) continue;
    const std::string stat = key.substr(0, key.size() - tail.size());
    if (stat.find('_') != std::string::npos) continue;  // "mean", "median", "std", "p99", not "x_y"
    renamed[stat + "_e2el_ms"] = value;
  }
  for (const auto& [key, value] : renamed) ms.try_emplace(key, value);
}

// Whether the itls account for each request's whole decode, as the file's own median TPOT says:
// a file whose lists are cut short (abbreviated by hand) would look like huge chunks.
bool itls_complete(const vllm_bench_result& r) {
  const auto it = r.summary_ms.find("median_tpot_ms");
  if (it == r.summary_ms.end() || !(it->second > 0)) return true;  // nothing to check against
  auto tpots = tpots_from_itls(r);
  if (tpots.empty()) return false;
  std::nth_element(tpots.begin(), tpots.begin() + static_cast<std::ptrdiff_t>(tpots.size() / 2), tpots.end());
  const double ratio = 1e3 * tpots[tpots.size() / 2] / it->second;
  return ratio > 0.75 && ratio < 1.25;
}

double tokens_per_chunk(const vllm_bench_result& r) {
  if (r.itls_s.size() != r.output_lens.size() || !itls_complete(r)) return 0;
  double tokens = 0, chunks = 0;
  for (std::size_t i = 0; i < r.itls_s.size(); ++i) {
    if (r.output_lens[i] < 2 || r.itls_s[i].empty()) continue;
    tokens += r.output_lens[i] - 1;
    chunks += static_cast<double>(r.itls_s[i].size());
  }
  return chunks > 0 ? tokens / chunks : 0;
}

vllm_bench_result parse(const json& j) {
  if (!j.is_object()) throw bad_field(std::string("expected a JSON object, got ") + j.type_name());
  vllm_bench_result r;
  if (const auto it = j.find("model_id"); it != j.end() && it->is_string()) r.model_id = *it;
  r.completed = count(need(j, "completed"), "completed");
  r.duration_s = number(need(j, "duration"), "duration");
  if (!(r.duration_s > 0) || !std::isfinite(r.duration_s))
    fail_field("duration", "must be a positive number of seconds");
  r.input_lens = lengths(need(j, "input_lens"), "input_lens");
  r.output_lens = lengths(need(j, "output_lens"), "output_lens");
  if (r.input_lens.size() != r.output_lens.size()) {
    fail_field("output_lens", std::to_string(r.output_lens.size()) +
                                  " entries but input_lens has " +
                                  std::to_string(r.input_lens.size()));
  }
  if (r.input_lens.empty()) fail_field("input_lens", "empty: no requests to replay");
  const auto concurrency = j.find("max_concurrency");
  const auto rate = j.find("request_rate");
  const bool has_concurrency = concurrency != j.end() && !concurrency->is_null();
  const bool has_rate = rate != j.end() && !rate->is_null();
  if (!has_concurrency && !has_rate)
    fail_field("request_rate", "missing, and no max_concurrency either: how were requests sent?");
  if (has_concurrency) {
    const auto c = count(*concurrency, "max_concurrency");
    if (c == 0 || c > (1u << 20)) fail_field("max_concurrency", "must be in [1, 1048576]");
    r.max_concurrency = static_cast<std::uint32_t>(c);
  }
  r.request_rate = has_rate ? number(*rate, "request_rate") : std::numeric_limits<double>::infinity();
  if (!(r.request_rate > 0)) fail_field("request_rate", "must be positive (or \"inf\")");
  if (const auto it = j.find("burstiness"); it != j.end() && !it->is_null()) {
    r.burstiness = number(*it, "burstiness");
    if (!(r.burstiness > 0) || !std::isfinite(r.burstiness))
      fail_field("burstiness", "must be a positive number");
  }
  for (const char* key : {"total_input_tokens", "total_output_tokens"}) {
    if (const auto it = j.find(key); it != j.end() && !it->is_null()) {
      (std::string_view(key) == "total_input_tokens" ? r.total_input_tokens : r.total_output_tokens) =
          count(*it, key);
    }
  }
  for (const char* key : {"request_throughput", "output_throughput"}) {
    if (const auto it = j.find(key); it != j.end() && it->is_number()) {
      (std::string_view(key) == "request_throughput" ? r.request_throughput : r.output_throughput) = *it;
    }
  }
  if (const auto it = j.find("ttfts"); it != j.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) r.ttfts_s.push_back(number((*it)[i], "ttfts[" + std::to_string(i) + "]"));
  }
  if (const auto it = j.find("itls"); it != j.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string where = "itls[" + std::to_string(i) + "]";
      if (!(*it)[i].is_array()) fail_field(where, "expected an array");
      auto& gaps = r.itls_s.emplace_back();
      for (const auto& g : (*it)[i]) gaps.push_back(number(g, where));
    }
  }
  for (const auto& [key, value] : j.items()) {
    if (value.is_number() && key.size() > 3 && key.ends_with("_ms")) r.summary_ms[key] = value.get<double>();
  }
  add_e2el_names(r.summary_ms);
  r.tokens_per_chunk = tokens_per_chunk(r);
  return r;
}

// The benchmark's requests: its lengths, sent as it sent them.
class vllm_bench_source final : public request_source {
 public:
  vllm_bench_source(vllm_bench_result result, std::uint64_t seed)
      : result_(std::move(result)), gaps_(seed, 1) {}

  bool next(request& out) override {
    if (next_ >= result_.input_lens.size()) return false;
    if (time_ >= max_arrival_s) {
      throw load_error(load_error_kind::bad_input,
                       result_.source + ": field 'request_rate': request " + std::to_string(next_) +
                           " would arrive " + std::to_string(time_) +
                           " s after the first; " + max_arrival_rule);
    }
    out = request{};
    out.id = next_;
    out.arrival_s = time_;
    out.prompt_tokens = result_.input_lens[next_];
    out.output_tokens = result_.output_lens[next_];
    ++next_;
    ++counters_.rows;
    ++counters_.requests;
    // vLLM's get_request: gamma gaps with shape `burstiness` and mean 1/rate; an infinite rate
    // sends everything at once (the concurrency limit then paces it).
    if (std::isfinite(result_.request_rate)) {
      const double k = result_.burstiness;
      time_ += gaps_.gamma(k) / (k * result_.request_rate);
    }
    return true;
  }
  double progress() const noexcept override {
    return static_cast<double>(next_) / static_cast<double>(result_.input_lens.size());
  }
  std::string_view format_name() const noexcept override { return "vllm-bench"; }
  std::uint32_t client_concurrency() const noexcept override { return result_.max_concurrency.value_or(0); }

 private:
  vllm_bench_result result_;
  rng gaps_;
  std::size_t next_ = 0;
  double time_ = 0;
};

}  // namespace

expected<vllm_bench_result, std::string> parse_vllm_bench(std::string_view text, std::string_view source) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // a parse error, or a number past a double (1e400)
    return unexpected{std::string(source) + ": invalid JSON: " + e.what()};
  }
  return detail::with_source(source, [&] {
    auto r = parse(j);
    r.source = std::string(source);
    return r;
  });
}

std::vector<double> tpots_from_itls(const vllm_bench_result& m) {
  std::vector<double> out;
  for (std::size_t i = 0; i < m.itls_s.size() && i < m.output_lens.size(); ++i) {
    if (m.output_lens[i] < 2 || m.itls_s[i].empty()) continue;
    double sum = 0;
    for (double g : m.itls_s[i]) sum += g;
    out.push_back(sum / static_cast<double>(m.output_lens[i] - 1));
  }
  return out;
}

expected<vllm_bench_result, std::string> read_vllm_bench(const std::filesystem::path& path) {
  return detail::read_and_parse(path, parse_vllm_bench);
}

std::unique_ptr<request_source> make_vllm_bench_load(const vllm_bench_result& result, std::uint64_t seed) {
  return std::make_unique<vllm_bench_source>(result, seed);
}

}  // namespace kvscope
