#include "panels/stats_panel.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

#include "run/run_summary.hpp"
#include "common/live_label.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {
namespace {

QString rejectedHelp() {
  return QObject::tr("Requests refused because they could never be served: longer than the model's context, or "
                     "larger than the KV budget even alone in the pool");
}

}  // namespace

StatsPanel::StatsPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("statsPanel"));
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(6, 4, 6, 4);
  form_ = new QWidget;
  auto* grid = new QGridLayout(form_);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setVerticalSpacing(2);
  outer->addWidget(form_);
  addRow(QStringLiteral("running"), tr("running / waiting"),
         tr("Sequences in the batch / requests queued for admission"));
  addRow(QStringLiteral("requests"), tr("requests"),
         tr("Finished of those arrived so far; rejected ones could never be served"));
  addRow(QStringLiteral("rejected"), tr("rejected"),
         rejectedHelp());
  addRow(QStringLiteral("preemptions"), tr("preemptions"),
         tr("Sequences evicted (recompute) because a new block did not fit"));
  addRow(QStringLiteral("transitions"), tr("level changes"),
         tr("Policy level transitions: up (compress) / down (relax)"));
  addRow(QStringLiteral("migrated"), tr("blocks re-stored"),
         tr("Cold blocks moved to another precision by the policy so far"));
  addRow(QStringLiteral("usage"), tr("KV usage peak / mean"),
         tr("Raw pressure (bytes referenced / budget) over the run"));
  addRow(QStringLiteral("prefix"), tr("prefix cache hits"),
         tr("Share of prefix-cache lookups that hit: prompt blocks shared with another "
            "sequence instead of recomputed"));
  addRow(QStringLiteral("decode"), tr("decode tokens/s"),
         tr("Tokens decoded per simulated second over the last two simulated seconds"));
  addRow(QStringLiteral("rate"), tr("engine steps/s"), tr("Steps per wall-clock second"));

  // The newest rejection's reason in words, under the numbers; the tooltip has the last few.
  rejection_ = new QLabel;
  rejection_->setObjectName(QStringLiteral("rejectionReason"));
  rejection_->setWordWrap(true);
  rejection_->setStyleSheet(QStringLiteral("color: #c0392b"));
  rejection_->setVisible(false);
  outer->addWidget(rejection_);

  auto* quality = new QGridLayout;
  quality->setVerticalSpacing(1);
  quality->setHorizontalSpacing(10);
  auto* title = new QLabel(tr("<b>measured error</b> (relative, on the real K/V bytes)"));
  title->setToolTip(tr("K/V: RMSE of the dequantized blocks against the values written. Attention: "
                       "L2 error of decode attention computed over the paged cache. Sampled every "
                       "50 steps; — = level not in use yet."));
  quality->addWidget(title, 0, 0, 1, 5);
  quality->addWidget(new QLabel(tr("level")), 1, 0);
  quality->addWidget(new QLabel(tr("K/V now")), 1, 1);
  quality->addWidget(new QLabel(tr("attn now")), 1, 2);
  quality->addWidget(new QLabel(tr("K/V run")), 1, 3);
  quality->addWidget(new QLabel(tr("attn run")), 1, 4);
  for (precision p : all_precisions) {
    const int i = ordinal(p);
    const auto u = static_cast<std::size_t>(i);
    quality->addWidget(new QLabel(levelName(p)), i + 2, 0);
    int column = 1;
    for (auto* cells : {&rmse_, &attention_, &runRmse_, &runAttention_}) {
      (*cells)[u] = new LiveLabel;
      (*cells)[u]->setText(QStringLiteral("—"));
      (*cells)[u]->reserveRoomFor(QStringLiteral("0.0000"));
      (*cells)[u]->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
      quality->addWidget((*cells)[u], i + 2, column++);
    }
  }
  qualityNote_ = new QLabel;
  qualityNote_->setWordWrap(true);
  qualityNote_->setVisible(false);
  quality->addWidget(qualityNote_, static_cast<int>(kv_level_count) + 2, 0, 1, 5);
  outer->addLayout(quality);
  outer->addStretch();
}

LiveLabel* StatsPanel::addRow(const QString& key, const QString& label, const QString& help) {
  auto* grid = static_cast<QGridLayout*>(form_->layout());
  const int row = grid->rowCount();
  auto* name = new QLabel(label);
  name->setToolTip(help);
  auto* value = new LiveLabel;  // refreshed several times a second (see LiveLabel)
  value->setText(QStringLiteral("—"));
  value->setToolTip(help);
  value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  grid->addWidget(name, row, 0);
  grid->addWidget(value, row, 1);
  values_.emplace_back(key, value);
  return value;
}

QString StatsPanel::valueText(const QString& key) const {
  for (const auto& [k, label] : values_) {
    if (k == key) return label->text();
  }
  return {};
}

void StatsPanel::clearHistory() {
  recentDecode_.clear();
}

QString StatsPanel::rejectionText() const { return rejection_->isHidden() ? QString() : rejection_->text(); }

void StatsPanel::showRejections(const engine_snapshot& s) {
  LiveLabel* value = nullptr;
  for (const auto& [k, label] : values_) {
    if (k == QLatin1String("rejected")) value = label;
  }
  const bool any = s.rejected_total > 0 && !s.recent_rejections.empty();
  value->setText(any ? QString::number(s.rejected_total) : QStringLiteral("0"));
  rejection_->setVisible(any);
  if (!any) {
    value->setToolTip(rejectedHelp());
    return;
  }
  const rejected_request& newest = s.recent_rejections.back();
  rejection_->setText(tr("Rejected request %1: %2").arg(newest.request_id).arg(QString::fromStdString(newest.reason)));
  // The count per cause first: hundreds of refusals usually have one or two causes, and the
  // cause says what to change (a longer-context model, a larger budget).
  QString list = tr("%1 rejected:").arg(s.rejected_total);
  for (std::size_t i = 0; i < s.rejected_by_cause.size(); ++i) {
    if (s.rejected_by_cause[i] == 0) continue;
    const std::string_view cause = describe(static_cast<rejection_cause>(i));
    list += tr("\n  %1 %2").arg(s.rejected_by_cause[i]).arg(QString::fromUtf8(cause.data(), static_cast<qsizetype>(cause.size())));
  }
  list += s.rejected_total > s.recent_rejections.size()
              ? tr("\nThe last %1, newest last:").arg(s.recent_rejections.size())
              : tr("\nEach, newest last:");
  for (const rejected_request& r : s.recent_rejections) {
    list += tr("\nrequest %1: %2").arg(r.request_id).arg(QString::fromStdString(r.reason));
  }
  list += tr("\n(kvscope-cli simulate --requests FILE writes every request with its outcome or reason)");
  value->setToolTip(list);
  rejection_->setToolTip(list);
}

void StatsPanel::setStepRate(double stepsPerSecond) {
  for (const auto& [k, label] : values_) {
    if (k == QStringLiteral("rate")) label->setText(QString::number(stepsPerSecond, 'f', 1));
  }
}

void StatsPanel::appendMetrics(const MetricsPtr& metrics) {
  if (!metrics) return;
  for (const step_metrics& m : *metrics) recentDecode_.emplace_back(m.sim_time_s, m.decode_tokens);
}

void StatsPanel::setMeasuring(bool measuring) {
  qualityNote_->setText(tr("<i>Accounting mode: blocks hold no bytes, so there is no error to "
                           "measure. Choose payload “data” in the Load panel.</i>"));
  qualityNote_->setVisible(!measuring);
}

void StatsPanel::setSnapshot(const SnapshotPtr& snapshot) {
  if (!snapshot) return;
  const step_metrics& m = snapshot->latest;
  while (recentDecode_.size() > 2 && recentDecode_.front().first < m.sim_time_s - 2.0) recentDecode_.pop_front();
  double tokens = 0;
  for (std::size_t i = 1; i < recentDecode_.size(); ++i) tokens += recentDecode_[i].second;
  const double span = recentDecode_.size() > 1 ? recentDecode_.back().first - recentDecode_.front().first : 0;
  const auto set = [this](const char* key, const QString& text) {
    for (const auto& [k, label] : values_) {
      if (k == QLatin1String(key)) label->setText(text);
    }
  };
  const run_summary* sum = snapshot->summary.get();
  set("running", tr("%1 / %2").arg(m.num_requests_running).arg(m.num_requests_waiting));
  if (sum) {
    set("requests", sum->requests_rejected
                        ? tr("%1 of %2 done · %3 rejected").arg(sum->requests_finished)
                              .arg(sum->requests_total).arg(sum->requests_rejected)
                        : tr("%1 of %2 done").arg(sum->requests_finished).arg(sum->requests_total));
    set("migrated", QString::number(sum->migrated_blocks));
    set("usage", tr("%1 % / %2 %").arg(100 * sum->peak_usage, 0, 'f', 1).arg(100 * sum->mean_usage, 0, 'f', 1));
  }
  showRejections(*snapshot);
  set("preemptions", QString::number(m.num_preemptions_total));
  set("transitions", tr("%1 (↑%2 ↓%3)")
                         .arg(m.level_transitions_total)
                         .arg(snapshot->policy_now.upgrades)
                         .arg(snapshot->policy_now.downgrades));
  set("prefix", m.prefix_cache_queries == 0
                    ? QStringLiteral("—")
                    : tr("%1 %")
                          .arg(100.0 * static_cast<double>(m.prefix_cache_hits) /
                                   static_cast<double>(m.prefix_cache_queries), 0, 'f', 1));
  set("decode", span > 0 ? QString::number(tokens / span, 'f', 0) : QStringLiteral("—"));
  const auto fmt = [](double v) {
    return std::isfinite(v) ? QString::number(v, 'f', 4) : QStringLiteral("—");
  };
  for (std::size_t i = 0; i < kv_level_count; ++i) {
    rmse_[i]->setText(fmt(m.quant_rel_rmse[i]));
    attention_[i]->setText(fmt(m.attention_rel_l2[i]));
    runRmse_[i]->setText(fmt(sum ? sum->quant_rel_rmse[i] : NAN));
    runAttention_[i]->setText(fmt(sum ? sum->attention_rel_l2[i] : NAN));
  }
}

}  // namespace kvscope::ui
