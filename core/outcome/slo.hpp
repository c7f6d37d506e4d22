#pragma once
// Service-level objectives for goodput (DistServe; vLLM's `--goodput`): per-request limits on
// TTFT, TPOT and end-to-end latency in seconds, any subset. A request is good when it finished
// and each given metric is at most its limit (vLLM compares with <=).
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace kvscope
