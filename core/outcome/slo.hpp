#pragma once
// Service-level objectives for goodput (DistServe; vLLM's `--goodput`): per-request limits on
// TTFT, TPOT and end-to-end latency in seconds, any subset. A request is good when it finished
// and each given metric is at most its limit (vLLM compares with <=).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.hpp"

namespace kvscope {

struct slo_spec {
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  std::optional<double> e2e_s;

  bool empty() const noexcept { return !ttft_s && !tpot_s && !e2e_s; }
  friend bool operator==(const slo_spec&, const slo_spec&) = default;
};

// Parses "ttft=0.5,tpot=0.05,e2e=10" (keys in any order, spaces around items allowed). Errors
// name the option and the item, e.g. "slo: unknown key 'foo' (ttft, tpot, e2e)" or
// "slo: 'ttft=-1': expected a positive number of seconds"; a key given twice, an empty item
// and non-finite numbers are refused.
expected<slo_spec, std::string> parse_slo(std::string_view text);

// vLLM's goodput test of one finished request: every given limit is met (<=). A one-token
// output (TPOT NaN) meets any TPOT limit, as vLLM counts its TPOT as 0; a NaN TTFT or e2e
// meets no limit on it.
bool meets_slo(const slo_spec& slo, double ttft_s, double tpot_s, double e2e_s) noexcept;

// Latency limits past which a value in seconds is far more likely one meant in milliseconds:
// 600 s (10 minutes) before the first token or for a whole request is beyond any interactive
// service's objective, while 600 ms is a common one; 10 s per output token (0.1 token/s) is
// slower than any server is asked to be, while 10 ms is a common TPOT target.
inline constexpr double max_plausible_request_latency_s = 600;  // ttft, e2e
inline constexpr double max_plausible_token_latency_s = 10;     // tpot, itl

// Why `seconds` is implausible as a limit on `metric` ("ttft", "tpot", "itl" or "e2e"), e.g.
// "1000 s is more than 600 s, implausible for a time to first token; limits are in seconds";
// nullopt when it is plausible or the metric has no rule.
std::optional<std::string> implausible_latency_limit(std::string_view metric, double seconds);

// One warning per implausible limit, naming the option and the value in seconds it may have
// meant: "slo: 'ttft=1000': ...; if it is in milliseconds, write ttft=1". A warning, not an
// error: a batch replay may really allow an hour.
std::vector<std::string> slo_unit_warnings(const slo_spec& slo);

}  // namespace kvscope
