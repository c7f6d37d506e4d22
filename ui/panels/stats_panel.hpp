#pragma once
// Numbers from the latest snapshot and its run summary: queue, requests, rejections and why,
// preemptions, transitions, prefix hit rate, decode throughput, usage, migrations, and the
// quantization and attention error per level as measured on the real K/V bytes (latest
// sample and whole run).
#include <QWidget>

#include <array>
#include <deque>

#include "common/meta_types.hpp"

class QLabel;

namespace kvscope::ui {

class LiveLabel;

class StatsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StatsPanel(QWidget* parent = nullptr);
  QString valueText(const QString& key) const;
  // The newest rejection's reason as shown under the numbers ("" when none).
  QString rejectionText() const;

 public Q_SLOTS:
  void appendMetrics(const kvscope::ui::MetricsPtr& metrics);
  void setSnapshot(const kvscope::ui::SnapshotPtr& snapshot);
  void clearHistory();
  // Engine steps per wall-clock second, measured by the bridge.
  void setStepRate(double stepsPerSecond);
  // Whether the run holds real K/V bytes (data mode): without them there is no error to measure.
  void setMeasuring(bool measuring);

 private:
  void showRejections(const engine_snapshot& snapshot);
  LiveLabel* addRow(const QString& key, const QString& label, const QString& help);

  QWidget* form_ = nullptr;
  std::vector<std::pair<QString, LiveLabel*>> values_;
  std::array<LiveLabel*, kv_level_count> rmse_{}, attention_{}, runRmse_{}, runAttention_{};
  QLabel* qualityNote_ = nullptr;
  QLabel* rejection_ = nullptr;
  std::deque<std::pair<double, std::uint32_t>> recentDecode_;  // (sim time, tokens) for the rate
};

}  // namespace kvscope::ui
