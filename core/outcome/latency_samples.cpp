#include "outcome/latency_samples.hpp"

#include <cassert>
#include <cmath>

namespace kvscope {

struct latency_samples::sketches {
  quantile_sketch ttft_s, tpot_s, e2e_s, queue_s;

  void add(const sample& s) noexcept {
    // NaN marks an undefined sample: it is left out, as exact_stats drops it.
    const auto put = [](quantile_sketch& q, double v) {
      if (!std::isnan(v)) q.add(v);
    };
    put(ttft_s, s.ttft_s);
    put(tpot_s, s.tpot_s);
    put(e2e_s, s.e2e_s);
    put(queue_s, s.queue_s);
  }
};

latency_stats sketch_stats(const quantile_sketch& s) noexcept {
  return {s.mean(), s.quantile(0.5), s.quantile(0.9), s.quantile(0.99), s.max()};
}

latency_samples::latency_samples(std::size_t exact_limit) : exact_limit_(exact_limit) {
  assert(exact_limit >= 1);
}
latency_samples::~latency_samples() = default;
latency_samples::latency_samples(latency_samples&&) noexcept = default;
latency_samples& latency_samples::operator=(latency_samples&&) noexcept = default;

void latency_samples::add(double ttft_s, double tpot_s, double e2e_s, double queue_s) {
  const sample s{ttft_s, tpot_s, e2e_s, queue_s};
  ++count_;
  if (sketches_) {
    sketches_->add(s);
    return;
  }
  if (kept_.size() == exact_limit_) {
    fold_into_sketches();
    sketches_->add(s);
    return;
  }
  kept_.push_back(s);
}

void latency_samples::fold_into_sketches() {
  sketches_ = std::make_unique<sketches>();
  for (const sample& s : kept_) sketches_->add(s);
  std::vector<sample>().swap(kept_);
}

request_latency_stats latency_samples::stats() const {
  if (sketches_) {
    return {sketch_stats(sketches_->ttft_s), sketch_stats(sketches_->tpot_s),
            sketch_stats(sketches_->e2e_s), sketch_stats(sketches_->queue_s)};
  }
  std::vector<double> ttft, tpot, e2e, queue;
  for (auto* v : {&ttft, &tpot, &e2e, &queue}) v->reserve(kept_.size());
  for (const sample& s : kept_) {
    ttft.push_back(s.ttft_s);
    tpot.push_back(s.tpot_s);
    e2e.push_back(s.e2e_s);
    queue.push_back(s.queue_s);
  }
  return {exact_stats(ttft), exact_stats(tpot), exact_stats(e2e), exact_stats(queue)};
}

}  // namespace kvscope
