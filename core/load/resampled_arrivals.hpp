#pragma once
// The same requests at new arrival times: a renewal process at the load's own mean rate. A
// trace's bursts are part of its arrival times; time-scaling keeps them, resampling asks what
// the same requests would do arriving as a Poisson process, or burstier or smoother (Gamma gaps
// with a chosen coefficient of variation), at the same mean rate.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "load/random.hpp"
#include "load/request_source.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct arrival_process {
  enum class kind : std::uint8_t { keep, poisson, gamma };
  kind shape = kind::keep;
  double cv = 1;  // the gaps' coefficient of variation (1 for poisson)

  friend bool operator==(const arrival_process&, const arrival_process&) = default;
};

// The largest CV accepted: beyond it Gamma gaps are nearly all 0 with a rare huge one.
inline constexpr double max_arrival_cv = 10;

// "keep", "poisson" or "gamma:CV" with 0 < CV <= max_arrival_cv; the error says what is
// expected without naming a flag (callers add theirs).
expected<arrival_process, std::string> parse_arrival_process(std::string_view text);

// What a summary says of it: "Poisson", "Gamma (CV 2)"; "" for keep.
std::string describe_arrival_process(const arrival_process& p);

// What resampling needs to know of a load before it streams.
struct arrival_span {
  std::uint64_t requests = 0;
  double first_s = 0;
  double last_s = 0;

  // (last - first) / (requests - 1): the gap that gives the load's mean rate; 0 below 2 requests.
  double mean_gap_s() const noexcept;
};

// Drains `source` once, keeping only the count and the first and last arrival (constant memory).
arrival_span scan_arrival_span(request_source& source);

// `inner`'s requests unchanged but for their arrival times: the first at span.first_s, each next
// one a gap later, gaps ~ Gamma(k) with k = 1 / CV² (k = 1: exponential, as the generator draws
// them) scaled so that the last arrives at span.last_s: the renewal process given that its
// requests fill the load's span (for Poisson, uniform times over it), so the mean gap is
// mean_gap_s() exactly. Drawn from `seed` alone, so a run is the same every time.
class resampled_arrivals_source final : public request_source {
 public:
  // `inner` must be the load `span` was scanned from, opened afresh. Precondition: p is not keep.
  // Throws load_error for a closed loop: its clients, not arrival times, pace its requests.
  resampled_arrivals_source(std::unique_ptr<request_source> inner, const arrival_span& span,
                            const arrival_process& p, std::uint64_t seed);

  // The inner request with the next resampled arrival (throws load_error past max_arrival_s).
  bool next(request& out) override;
  double progress() const noexcept override { return inner_->progress(); }
  std::string_view format_name() const noexcept override { return inner_->format_name(); }
  std::uint64_t bytes_read() const noexcept override { return inner_->bytes_read(); }

 private:
  std::unique_ptr<request_source> inner_;
  double shape_;            // k of the Gamma gaps
  double gap_scale_s_ = 0;  // seconds per unit of a Gamma(k) draw
  rng gaps_;
  double next_s_;
};

// `into` made equal to `from`, reusing its message strings unless `from`'s changed (they rarely
// do): for wrappers that pass an inner source's counters on after every request.
void mirror_counters(load_counters& into, const load_counters& from);

}  // namespace kvscope
