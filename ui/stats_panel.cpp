#include "stats_panel.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

namespace kvscope::ui {

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
  addRow(QStringLiteral("finished"), tr("finished"), tr("Requests completed so far"));
  addRow(QStringLiteral("preemptions"), tr("preemptions"),
         tr("Sequences evicted (recompute) because a new block did not fit"));
  addRow(QStringLiteral("transitions"), tr("level changes"),
         tr("Policy level transitions: up (compress) / down (relax)"));
  addRow(QStringLiteral("prefix"), tr("prefix cache hits"),
         tr("Share of prompt blocks found in the prefix cache (shared, not recomputed)"));
  addRow(QStringLiteral("decode"), tr("decode tokens/s"),
         tr("Tokens decoded per simulated second over the last two seconds"));
  addRow(QStringLiteral("rate"), tr("engine steps/s"), tr("Steps per wall-clock second"));

  auto* quality = new QGridLayout;
  quality->setVerticalSpacing(1);
  auto* title = new QLabel(tr("<b>measured error</b> (relative)"));
  title->setToolTip(tr("Quantization: RMSE of dequantized vs original K/V. Attention: L2 error "
                       "of decode attention over the paged cache. — = level not in use or not sampled."));
  quality->addWidget(title, 0, 0, 1, 3);
  quality->addWidget(new QLabel(tr("level")), 1, 0);
  quality->addWidget(new QLabel(tr("K/V RMSE")), 1, 1);
  quality->addWidget(new QLabel(tr("attention")), 1, 2);
  for (precision p : all_precisions) {
    const int i = ordinal(p);
    quality->addWidget(new QLabel(QString::fromLatin1(tag(p).data())), i + 2, 0);
    rmse_[static_cast<std::size_t>(i)] = new QLabel(QStringLiteral("—"));
    attention_[static_cast<std::size_t>(i)] = new QLabel(QStringLiteral("—"));
    quality->addWidget(rmse_[static_cast<std::size_t>(i)], i + 2, 1);
    quality->addWidget(attention_[static_cast<std::size_t>(i)], i + 2, 2);
  }
  outer->addLayout(quality);
  outer->addStretch();
}

QLabel* StatsPanel::addRow(const QString& key, const QString& label, const QString& help) {
  auto* grid = static_cast<QGridLayout*>(form_->layout());
  const int row = grid->rowCount();
  auto* name = new QLabel(label);
  name->setToolTip(help);
  auto* value = new QLabel(QStringLiteral("—"));
  value->setToolTip(help);
  value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  value->setTextInteractionFlags(Qt::TextSelectableByMouse);
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

void StatsPanel::setStepRate(double stepsPerSecond) {
  for (const auto& [k, label] : values_) {
    if (k == QStringLiteral("rate")) label->setText(QString::number(stepsPerSecond, 'f', 1));
  }
}

void StatsPanel::appendMetrics(const MetricsPtr& metrics) {
  if (!metrics) return;
  for (const step_metrics& m : *metrics) recentDecode_.emplace_back(m.sim_time_s, m.decode_tokens);
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
  set("running", tr("%1 / %2").arg(m.num_requests_running).arg(m.num_requests_waiting));
  set("finished", QString::number(m.requests_finished_total));
  set("preemptions", QString::number(m.num_preemptions_total));
  set("transitions", tr("%1 (↑%2 ↓%3)")
                         .arg(m.level_transitions_total)
                         .arg(snapshot->policy_now.upgrades)
                         .arg(snapshot->policy_now.downgrades));
  set("prefix", m.prefix_cache_queries == 0
                    ? QStringLiteral("—")
                    : tr("%1 % of %2 blocks")
                          .arg(100.0 * static_cast<double>(m.prefix_cache_hits) /
                                   static_cast<double>(m.prefix_cache_queries), 0, 'f', 1)
                          .arg(m.prefix_cache_queries));
  set("decode", span > 0 ? QString::number(tokens / span, 'f', 0) : QStringLiteral("—"));
  const auto fmt = [](double v) {
    return std::isnan(v) ? QStringLiteral("—") : QString::number(v, 'g', 3);
  };
  for (std::size_t i = 0; i < 4; ++i) {
    rmse_[i]->setText(fmt(m.quant_rel_rmse[i]));
    attention_[i]->setText(fmt(m.attention_rel_l2[i]));
  }
}

}  // namespace kvscope::ui
