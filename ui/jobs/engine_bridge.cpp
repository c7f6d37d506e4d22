#include "jobs/engine_bridge.hpp"

#include <QTimer>

namespace kvscope::ui {

EngineBridge::EngineBridge(std::unique_ptr<engine_feed> feed, QObject* parent)
    : QObject(parent), feed_(std::move(feed)), timer_(new QTimer(this)) {
  qRegisterMetaType<kvscope::ui::SnapshotPtr>();
  qRegisterMetaType<kvscope::policy_config>();
  qRegisterMetaType<kvscope::ui::MetricsPtr>();
  timer_->setTimerType(Qt::PreciseTimer);
  connect(timer_, &QTimer::timeout, this, &EngineBridge::poll);
  // The app's engine publishes a little faster than we poll; one that publishes slower (or a
  // tick that lands just before a publish) is looked at again a few ms later instead of a
  // whole tick later: two clocks of about the same period beating drop frames.
  retry_ = new QTimer(this);
  retry_->setSingleShot(true);
  retry_->setInterval(4);
  connect(retry_, &QTimer::timeout, this, &EngineBridge::poll);
}

EngineBridge::~EngineBridge() = default;

void EngineBridge::start(int intervalMs) { timer_->start(intervalMs); }
void EngineBridge::stop() { timer_->stop(); }

void EngineBridge::setFeed(std::unique_ptr<engine_feed> feed) {
  feed_ = std::move(feed);
  current_.reset();
  pendingPolicy_.reset();
  haveStep_ = false;
  history_.clear();
  rateClock_.invalidate();
  stepRate_ = 0;
  Q_EMIT historyReset();
  poll();
}

void EngineBridge::poll() {
  if (!feed_) return;
  SnapshotPtr snap = feed_->latest();
  if (!snap || snap == current_) {  // nothing new: the same published object
    if (current_ && current_->playing && retries_ < 5 && !retry_->isActive()) {
      ++retries_;
      retry_->start();
    }
    return;
  }
  retries_ = 0;
  const bool reset = current_ && (snap->generation != current_->generation || snap->step < current_->step);
  if (reset) {
    haveStep_ = false;
    history_.clear();
    Q_EMIT historyReset();
  }
  // Steps we have not seen: from the shared recent chunks when the feed keeps them (nothing is
  // lost however slowly we poll), else from new_metrics. Whatever is still missing is counted.
  auto fresh = std::make_shared<std::vector<step_metrics>>();
  if (!snap->recent_chunks.empty()) {
    *fresh = snap->metrics_since(haveStep_ ? lastMetricStep_ + 1 : 0);
  } else {
    for (const step_metrics& m : snap->new_metrics) {
      if (!haveStep_ || m.step > lastMetricStep_) fresh->push_back(m);
    }
  }
  if (!fresh->empty()) {
    const std::uint64_t first = fresh->front().step;
    if (haveStep_ && first > lastMetricStep_ + 1) missed_ += first - lastMetricStep_ - 1;
    haveStep_ = true;
    lastMetricStep_ = fresh->back().step;
    for (const step_metrics& m : *fresh) history_.push(m);
  }
  if (!rateClock_.isValid() || reset) {
    rateClock_.start();
    rateStep_ = snap->step;
  } else if (rateClock_.elapsed() >= 500) {
    stepRate_ = static_cast<double>(snap->step - rateStep_) * 1000.0 / static_cast<double>(rateClock_.elapsed());
    rateClock_.restart();
    rateStep_ = snap->step;
  }
  const bool firstSnapshot = !current_;
  const bool policyMoved = current_ && !(current_->policy == snap->policy);
  current_ = snap;
  // A policy we posted is confirmed when the engine reports it; until then older snapshots
  // must not pull the sliders back.
  if (pendingPolicy_ && snap->policy == *pendingPolicy_) pendingPolicy_.reset();
  if (!pendingPolicy_ && (firstSnapshot || policyMoved)) Q_EMIT enginePolicy(snap->policy);
  if (!fresh->empty()) Q_EMIT metricsArrived(fresh);
  Q_EMIT snapshotReady(snap);
}

void EngineBridge::post(const runner_command& command) {
  if (!feed_) return;
  if (const auto* r = std::get_if<reconfigure_command>(&command)) pendingPolicy_ = r->config;
  feed_->post(command);
  Q_EMIT commandPosted(command);
}

void EngineBridge::postPolicy(const policy_config& config) { post(reconfigure_command{config}); }

}  // namespace kvscope::ui
