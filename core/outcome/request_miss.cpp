#include "outcome/request_miss.hpp"

namespace kvscope {

std::optional<miss_cause> miss_cause_of(const slo_spec& slo, const request_record& r) {
  if (slo.empty()) return std::nullopt;
  if (!r.finished()) return miss_cause::rejected;
  const double ttft = r.ttft_s(), tpot = r.tpot_s(), e2e = r.e2e_s();
  if (meets_slo(slo, ttft, tpot, e2e)) return std::nullopt;
  return dominant_cause(slo, ttft, tpot, e2e, r.output_tokens, r.parts, {r.alone_ttft_s, r.alone_tpot_s});
}

}  // namespace kvscope
