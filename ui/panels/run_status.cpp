#include "panels/run_status.hpp"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>

#include "common/live_label.hpp"

namespace kvscope::ui {
namespace {

}  // namespace

RunStatus::RunStatus(QStatusBar* bar, QObject* parent) : QObject(parent) {
  const auto add = [bar](const QString& tip) {
    auto* l = new QLabel;
    l->setToolTip(tip);
    l->setTextFormat(Qt::RichText);
    bar->addPermanentWidget(l);
    return l;
  };
  // The numbers change several times a second: labels that repaint without re-laying out the
  // window, with room for the longest usual text from the start.
  const auto addLive = [bar](const QString& tip, const QString& widest, Qt::TextFormat format) {
    auto* l = new LiveLabel(format);
    l->setToolTip(tip);
    l->reserveRoomFor(widest);
    bar->addPermanentWidget(l);
    return l;
  };
  progress_ = new QProgressBar;
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(160);
  progress_->setMaximumHeight(14);
  progress_->setTextVisible(false);
  progress_->setVisible(false);
  bar->addPermanentWidget(progress_);
  error_ = add(tr("Why the engine stopped"));
  error_->setVisible(false);
  feed_ = add(tr("What the engine runs"));
  step_ = addLive(tr("Engine step"), QStringLiteral("step 0000000"), Qt::PlainText);
  time_ = addLive(tr("Simulated time"), QStringLiteral("t = 00000.0 s"), Qt::PlainText);
  pressure_ = addLive(tr("Raw pressure and its EWMA, which the policy compares with its thresholds"),
                      QStringLiteral("pressure 0.000 · EWMA 0.000"), Qt::PlainText);
  level_ = addLive(tr("The policy's level: how cold blocks are stored now"), QStringLiteral("level ■ fp16"),
                   Qt::RichText);
  queue_ = addLive(tr("Sequences running / requests waiting"), QStringLiteral("running 000 · waiting 0000"),
                   Qt::PlainText);
}

void RunStatus::showRun(const QString& text, const QString& toolTip) {
  feed_->setText(text);
  feed_->setToolTip(toolTip);
}

void RunStatus::setRunToolTip(const QString& toolTip) { feed_->setToolTip(toolTip); }

void RunStatus::showSnapshot(const engine_snapshot& s, const Theme& theme) {
  const step_metrics& m = s.latest;
  step_->setText(tr("step %1").arg(s.step));
  time_->setText(tr("t = %1 s").arg(s.sim_time_s, 0, 'f', 1));
  // Only the ewma family has a controller; the others' level is the most compact one in use.
  pressure_->setText(s.policy.family == policy_family::ewma
                         ? tr("pressure %1 · EWMA %2").arg(m.kv_cache_usage_perc, 0, 'f', 3).arg(s.policy_now.ewma, 0, 'f', 3)
                         : tr("pressure %1").arg(m.kv_cache_usage_perc, 0, 'f', 3));
  level_->setText(tr("level <span style='color:%1'>■</span> <b>%2</b>")
                      .arg(theme.levelColor(m.level).name(), levelName(m.level)));
  queue_->setText(tr("running %1 · waiting %2").arg(m.num_requests_running).arg(m.num_requests_waiting));
  if (s.error.empty() != error_->isHidden()) {
    error_->setVisible(!s.error.empty());
    error_->setText(tr("<span style='color:#c0392b'><b>engine stopped:</b> %1 (Reset starts over)</span>")
                        .arg(QString::fromStdString(s.error).toHtmlEscaped()));
  }
}

void RunStatus::showProgress(double fraction) {
  progress_->setValue(static_cast<int>(fraction * 1000));
  progress_->setVisible(true);
}

void RunStatus::hideProgress() { progress_->setVisible(false); }

}  // namespace kvscope::ui
