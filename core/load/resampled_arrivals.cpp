#include "load/resampled_arrivals.hpp"

#include "load/load_error.hpp"
#include "load/numbers.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

// A stream of the seed of its own, so the gaps do not follow the synthetic K/V data's draws.
constexpr std::uint64_t resampled_gap_stream = 0x6172726976616c73ULL;  // "arrivals"

constexpr const char* expected_forms =
    "expected keep, poisson or gamma:CV (CV, the gaps' coefficient of variation, in (0, 10]: 1 is "
    "poisson, more is burstier, less smoother)";

}  // namespace

expected<arrival_process, std::string> parse_arrival_process(std::string_view text) {
  if (text == "keep") return arrival_process{};
  if (text == "poisson") return arrival_process{arrival_process::kind::poisson, 1};
  constexpr std::string_view gamma_prefix = "gamma:";
  double cv = 0;
  if (text.starts_with(gamma_prefix) &&
      parse_finite(text.substr(gamma_prefix.size()), cv) == number_error::none && cv > 0 &&
      cv <= max_arrival_cv) {
    return arrival_process{arrival_process::kind::gamma, cv};
  }
  return unexpected{std::string(expected_forms) + ", got '" + std::string(text) + "'"};
}

std::string describe_arrival_process(const arrival_process& p) {
  switch (p.shape) {
    case arrival_process::kind::keep: return "";
    case arrival_process::kind::poisson: return "Poisson";
    case arrival_process::kind::gamma: return "Gamma (CV " + format_significant(p.cv, 4) + ")";
  }
  return "";
}

double arrival_span::mean_gap_s() const noexcept {
  return requests > 1 ? (last_s - first_s) / static_cast<double>(requests - 1) : 0.0;
}

arrival_span scan_arrival_span(request_source& source) {
  arrival_span span;
  request r;
  while (source.next(r)) {
    if (span.requests++ == 0) span.first_s = r.arrival_s;
    span.last_s = r.arrival_s;
  }
  return span;
}

resampled_arrivals_source::resampled_arrivals_source(std::unique_ptr<request_source> inner,
                                                     const arrival_span& span, const arrival_process& p,
                                                     std::uint64_t seed)
    : inner_(std::move(inner)),
      shape_(1 / (p.cv * p.cv)),
      gaps_(seed, resampled_gap_stream),
      next_s_(span.first_s) {
  // The gaps are drawn once here only to be summed (the same draws come again as the load
  // streams), so that they can be scaled to fill the load's own span: its last request keeps its
  // time too, and the mean rate is the load's exactly rather than give or take sampling error.
  rng draws = gaps_;
  double sum = 0;
  for (std::uint64_t i = 1; i < span.requests; ++i) sum += draws.gamma(shape_);
  gap_scale_s_ = sum > 0 ? (span.last_s - span.first_s) / sum : 0.0;
  if (inner_->client_concurrency() > 0) {
    throw load_error(load_error_kind::bad_input,
                     "arrivals " + std::string(p.shape == arrival_process::kind::poisson ? "poisson" : "gamma") +
                         ": the load is a closed loop of " + std::to_string(inner_->client_concurrency()) +
                         " clients, which send each request when their previous one completes; it has no "
                         "arrival times to resample (keep them, or give the load a rate instead)");
  }
}

bool resampled_arrivals_source::next(request& out) {
  if (!inner_->next(out)) {
    mirror_counters(counters_, inner_->counters());
    return false;
  }
  out.arrival_s = next_s_;
  if (out.arrival_s >= max_arrival_s) {
    throw load_error(load_error_kind::bad_input,
                     "request " + std::to_string(out.id) + " arrives " + format_significant(out.arrival_s, 6) +
                         " s after the first once its arrivals are resampled; " + max_arrival_rule);
  }
  // Gamma(k) has CV 1/sqrt(k), as the generator draws its gaps; the scale sets the mean.
  next_s_ += gap_scale_s_ * gaps_.gamma(shape_);
  mirror_counters(counters_, inner_->counters());
  return true;
}

void mirror_counters(load_counters& into, const load_counters& from) {
  auto messages = std::move(into.bad_row_messages);
  if (messages.size() != from.bad_row_messages.size()) messages = from.bad_row_messages;
  into = load_counters{from.rows, from.requests, from.bad_rows, from.failed_requests, from.clamped_times,
                       std::move(messages)};
}

}  // namespace kvscope
