#include "run/run_description.hpp"

#include "engine/engine.hpp"
#include "load/load_error.hpp"
#include "load/resampled_arrivals.hpp"

namespace kvscope {
namespace {

// A load with every arrival time multiplied by a factor; the rest passes through.
class time_scaled_source final : public request_source {
 public:
  time_scaled_source(std::unique_ptr<request_source> inner, double scale)
      : inner_(std::move(inner)), scale_(scale) {}
  bool next(request& out) override {
    const bool more = inner_->next(out);
    if (more) out.arrival_s *= scale_;
    if (more && out.arrival_s >= max_arrival_s) {
      throw load_error(load_error_kind::bad_input,
                       "request " + std::to_string(out.id) + " arrives " + std::to_string(out.arrival_s) +
                           " s after the first once its time is scaled by " + std::to_string(scale_) +
                           "; " + max_arrival_rule);
    }
    mirror_counters(counters_, inner_->counters());
    return more;
  }
  double progress() const noexcept override { return inner_->progress(); }
  std::string_view format_name() const noexcept override { return inner_->format_name(); }
  // A closed loop stays one: scaling its times (all 0) must not free its clients' pace.
  std::uint32_t client_concurrency() const noexcept override { return inner_->client_concurrency(); }
  std::uint64_t bytes_read() const noexcept override { return inner_->bytes_read(); }

 private:
  std::unique_ptr<request_source> inner_;
  double scale_;
};

}  // namespace

std::unique_ptr<request_source> open_run_load(const run_description& run) {
  read_options options;
  options.skip_bad_rows = run.skip_bad_rows;
  auto source = open_load(run.load_spec, run.format, options);
  const auto process = parse_arrival_process(run.options.arrivals);
  if (!process) throw load_error(load_error_kind::bad_input, "arrivals: " + process.error());
  if (process->shape != arrival_process::kind::keep) {
    // The mean rate is the whole load's: one pass over a second copy finds it, in constant memory.
    const arrival_span span = scan_arrival_span(*open_load(run.load_spec, run.format, options));
    source = std::make_unique<resampled_arrivals_source>(std::move(source), span, *process, run.options.seed);
  }
  // Scaled after resampling, so a capacity search speeds up the resampled process itself.
  if (run.arrival_time_scale == 1.0) return source;
  return std::make_unique<time_scaled_source>(std::move(source), run.arrival_time_scale);
}

expected<void, std::string> resolve_run_setup(run_description& run) {
  if (run.setup && run.setup->options == run.options) return {};
  // A setup resolved from other options (a sweep config's copy of its base) still lends its files.
  auto setup = resolve_setup(run.options, run.setup.get());
  if (!setup) return unexpected{setup.error()};
  run.setup = std::make_shared<const engine_setup>(std::move(*setup));
  return {};
}

std::unique_ptr<engine> make_engine(const run_description& run) {
  if (run.setup && run.setup->options == run.options) {
    return std::make_unique<engine>(*run.setup, open_run_load(run));
  }
  return std::make_unique<engine>(run.options, open_run_load(run));
}

}  // namespace kvscope
