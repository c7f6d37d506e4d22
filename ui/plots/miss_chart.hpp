#pragma once
// The latency panel's "why missed" plot: requests that missed the SLO per window of completion
// times, as stacked bars by dominant cause (core's latency_series, docs/why-requests-miss.md),
// each cause in its theme colour, and legend entries for the causes seen with their share of
// the run's misses (LatencyCharts shows them in its legend row). Without an SLO it says so
// instead. Causes are taken generically from miss_cause: a new one gets bars and an entry.
#include <QObject>

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/level_legend.hpp"
#include "outcome/latency_series.hpp"
#include "outcome/slo_misses.hpp"
#include "common/theme.hpp"

class QCustomPlot;
class QCPBars;
class QCPItemText;

namespace kvscope::ui {

class MissChart : public QObject {
  Q_OBJECT
 public:
  // The plot is a child of `parent`, for its owner to lay out.
  explicit MissChart(QWidget* parent);
  void setTheme(const Theme& theme);
  void setSlo(const slo_spec& slo);
  // The windows to draw; the caller replots.
  void showSeries(const latency_series& series);
  // [0, end] simulated seconds; the count axis fitted to the tallest stack.
  void fitRanges(double end_s);

  QCustomPlot* plot() const { return plot_; }
  QCPBars* bars(miss_cause c) const { return bars_[static_cast<std::size_t>(c)]; }
  // What the plot says instead of bars ("no SLO set", "none missed"); empty while it has bars.
  QString message() const;
  // One entry per cause that explains a miss so far: its words and share of the misses.
  const QVector<ColorLegend::Entry>& legendEntries() const { return entries_; }

 Q_SIGNALS:
  void legendChanged();

 private:
  void updateLegend();
  void updateMessage();

  QCustomPlot* plot_ = nullptr;
  QCPItemText* message_ = nullptr;
  std::array<QCPBars*, miss_cause_count> bars_{};
  std::array<std::uint64_t, miss_cause_count> runMissed_{};  // over the run, for the legend
  QVector<ColorLegend::Entry> entries_;
  bool hasSlo_ = false;
  double tallest_ = 0;
  const Theme* theme_ = &lightTheme();
};

}  // namespace kvscope::ui
