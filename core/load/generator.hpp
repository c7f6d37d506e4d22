#pragma once
// A seeded synthetic load: gamma-distributed gaps, drawn lengths, optional shared-prefix groups.
#include <cstdint>
#include <optional>

#include "load/generator_spec.hpp"
#include "load/random.hpp"
#include "load/request_source.hpp"

namespace kvscope {

// Requests of a generator_spec, the same ones for the same spec on every platform.
// The first request arrives at 0; gap i ~ Gamma(k, 1/(k·rate)), so the mean rate is `rate` and
// the gaps' coefficient of variation 1/sqrt(k). With prefix groups, a request joins group
// g ~ Zipf(prefix_groups, prefix_zipf); the first min(prefix_len, prompt) tokens of its prompt are
// the group's, and each full block of them gets the group's chained hash. Without duration=, the
// load still ends before max_arrival_s (the spec refuses a count expected to take longer).
class generator_source final : public request_source {
 public:
  explicit generator_source(const generator_spec& spec);

  bool next(request& out) override;
  double progress() const noexcept override;
  std::string_view format_name() const noexcept override { return "gen"; }
  std::uint32_t client_concurrency() const noexcept override { return spec_.concurrency.value_or(0); }

  const generator_spec& spec() const noexcept { return spec_; }

 private:
  generator_spec spec_;
  rng arrivals_, prompts_, outputs_, groups_;
  length_sampler prompt_len_, output_len_;
  std::optional<zipf_sampler> group_of_;
  double next_time_ = 0;
  bool done_ = false;
};

}  // namespace kvscope
