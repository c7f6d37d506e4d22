#include "outcome/slo.hpp"

#include <cmath>

#include "load/numbers.hpp"
#include "util/number_text.hpp"
#include "util/trim.hpp"

namespace kvscope {
namespace {


unexpected<std::string> slo_error(std::string_view what) {
  return unexpected{"slo: " + std::string(what)};
}

}  // namespace

expected<slo_spec, std::string> parse_slo(std::string_view text) {
  if (trim(text).empty()) return slo_error("empty; expected e.g. ttft=0.5,tpot=0.05,e2e=10");
  slo_spec spec;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    const std::string quoted = "'" + std::string(item) + "'";
    const std::size_t eq = item.find('=');
    if (item.empty()) return slo_error("empty item; expected key=seconds separated by commas");
    if (eq == std::string_view::npos) return slo_error(quoted + ": expected key=seconds");
    const std::string_view key = trim(item.substr(0, eq));
    std::optional<double>* slot = key == "ttft" ? &spec.ttft_s
                                  : key == "tpot" ? &spec.tpot_s
                                  : key == "e2e"  ? &spec.e2e_s
                                                  : nullptr;
    if (slot == nullptr)
      return slo_error("unknown key '" + std::string(key) + "' (ttft, tpot, e2e)");
    if (slot->has_value()) return slo_error("'" + std::string(key) + "' given twice");
    double seconds = 0;
    if (parse_finite(trim(item.substr(eq + 1)), seconds) != number_error::none || !(seconds > 0))
      return slo_error(quoted + ": expected a positive number of seconds");
    *slot = seconds;
    if (comma == std::string_view::npos) return spec;
    text.remove_prefix(comma + 1);
  }
}

std::optional<std::string> implausible_latency_limit(std::string_view metric, double seconds) {
  const char* what = metric == "ttft"   ? "a time to first token"
                     : metric == "e2e"  ? "an end-to-end latency"
                     : metric == "tpot" ? "a time per output token"
                     : metric == "itl"  ? "an inter-token latency"
                                        : nullptr;
  if (what == nullptr) return std::nullopt;
  const bool per_token = metric == "tpot" || metric == "itl";
  const double most = per_token ? max_plausible_token_latency_s : max_plausible_request_latency_s;
  if (!(seconds > most)) return std::nullopt;
  return shortest(seconds) + " s is more than " + shortest(most) + " s, implausible for " + what +
         "; limits are in seconds";
}

std::vector<std::string> slo_unit_warnings(const slo_spec& slo) {
  std::vector<std::string> out;
  const std::pair<const char*, const std::optional<double>*> limits[] = {
      {"ttft", &slo.ttft_s}, {"tpot", &slo.tpot_s}, {"e2e", &slo.e2e_s}};
  for (const auto& [key, limit] : limits) {
    if (!*limit) continue;
    if (auto why = implausible_latency_limit(key, **limit)) {
      const std::string item = std::string(key) + "=";
      out.push_back("slo: '" + item + shortest(**limit) + "': " + *why + "; if it is in milliseconds, write " +
                    item + shortest(**limit / 1000));
    }
  }
  return out;
}

bool meets_slo(const slo_spec& slo, double ttft_s, double tpot_s, double e2e_s) noexcept {
  const double tpot_for_slo = std::isnan(tpot_s) ? 0.0 : tpot_s;
  return (!slo.ttft_s || ttft_s <= *slo.ttft_s) && (!slo.tpot_s || tpot_for_slo <= *slo.tpot_s) &&
         (!slo.e2e_s || e2e_s <= *slo.e2e_s);
}

}  // namespace kvscope
