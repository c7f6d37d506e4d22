// The plots draw from the bridge's metrics_history: over a long run their graphs follow its
// thinning (bounded), end at the newest step, and keep a marker for every level change.
#include <QApplication>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "common/live_label.hpp"
#include "run/metrics_history.hpp"
#include "run/snapshot.hpp"
#include "plots/memory_plot.hpp"
#include "plots/pressure_plot.hpp"
#include "common/qcustomplot_include.hpp"
#include "plots/transition_marks.hpp"

namespace kvscope::ui {
namespace {

TEST(Plots, GraphsStayBoundedOverALongRunAndEndAtTheNewestStep) {
  metrics_history history(1 << 12, 1 << 10);
  PressurePlot pressure;
  MemoryPlot memory;
  pressure.setHistory(&history);
  memory.setHistory(&history);
  std::uint64_t step = 0;
  std::uint64_t changes = 0;
  precision last = precision::fp16;
  for (int chunk = 0; chunk < 400; ++chunk) {  // 400 polls of 500 steps
    auto fresh = std::make_shared<std::vector<step_metrics>>();
    for (int i = 0; i < 500; ++i, ++step) {
      step_metrics m;
      m.step = step;
      m.sim_time_s = static_cast<double>(step) * 0.01;
      m.kv_cache_usage_perc = 0.5;
      m.pressure_ewma = 0.5;
      m.level = (step / 7000) % 2 ? precision::q8 : precision::fp16;
      m.bytes_per_level[0] = 1000;
      changes += m.level != last;
      last = m.level;
      history.push(m);
      fresh->push_back(m);
    }
    pressure.appendMetrics(fresh);
    memory.appendMetrics(fresh);
    QCPGraph* usage = pressure.customPlot()->graph(0);
    ASSERT_LE(static_cast<std::size_t>(usage->dataCount()), history.point_count() + (1 << 15) + 500);
    ASSERT_DOUBLE_EQ((usage->data()->constEnd() - 1)->key, history.last_point().sim_time_s);
  }
  for (QCPGraph* g : {memory.customPlot()->graph(0), pressure.customPlot()->graph(1)}) {
    EXPECT_LE(static_cast<std::size_t>(g->dataCount()), history.point_count() + (1 << 15) + 500);
    EXPECT_DOUBLE_EQ((g->data()->constEnd() - 1)->key, history.last_point().sim_time_s);
  }
  // Markers: graphs 2 (up) and 3 (down) of the pressure plot hold one point per transition.
  const int markers = pressure.customPlot()->graph(2)->dataCount() + pressure.customPlot()->graph(3)->dataCount();
  EXPECT_EQ(static_cast<std::uint64_t>(markers), changes);
  EXPECT_EQ(history.transitions_seen(), changes);
  // A reset empties them.
  history.clear();
  pressure.clearHistory();
  memory.clearHistory();
  EXPECT_EQ(pressure.customPlot()->graph(0)->dataCount(), 0);
  EXPECT_EQ(memory.customPlot()->graph(0)->dataCount(), 0);
}

// At 200 % on a 768-pixel screen the memory panel is about 320 × 236: its summary takes its
// short form (the whole in its tooltip) rather than cover the plot's axis, and the whole
// sentence comes back where there is room for it.
TEST(Plots, TheMemorySummaryNeverCoversThePlot) {
  MemoryPlot memory;
  auto snapshot = std::make_shared<engine_snapshot>();
  snapshot->budget_bytes = 16ull << 20;
  snapshot->latest.bytes_per_level = {8ull << 20, 4ull << 20, 0, 2ull << 20, 0};
  snapshot->latest.scale_bytes = 1ull << 20;
  snapshot->latest.cached_bytes = 1ull << 19;
  const LiveLabel* summary = memory.findChild<LiveLabel*>();
  ASSERT_NE(summary, nullptr);
  const auto showAt = [&](int width, int height) {
    memory.resize(width, height);
    memory.show();
    memory.setSnapshot(snapshot);
    QApplication::processEvents();
  };
  showAt(320, 236);
  EXPECT_FALSE(memory.summaryText().contains(QStringLiteral("The same blocks in fp16"))) << memory.summaryText().toStdString();
  EXPECT_TRUE(summary->toolTip().contains(QStringLiteral("The same blocks in fp16")));
  EXPECT_FALSE(summary->isVisible() && summary->geometry().intersects(memory.customPlot()->geometry()))
      << "summary " << summary->geometry().y() << "+" << summary->height() << ", plot ends at "
      << memory.customPlot()->geometry().bottom();
  showAt(700, 460);
  EXPECT_TRUE(summary->isVisible());
  EXPECT_TRUE(memory.summaryText().contains(QStringLiteral("The same blocks in fp16")));
  EXPECT_TRUE(summary->toolTip().isEmpty());
  EXPECT_FALSE(summary->geometry().intersects(memory.customPlot()->geometry()));
}

// The captions once `policy` is drawn on a plot of 700 × 320, shown and laid out.
QList<QPair<double, QString>> captionsFor(PressurePlot& pressure, const policy_config& policy) {
  if (!pressure.isVisible()) {
    pressure.resize(700, 320);
    pressure.show();
  }
  pressure.setPolicy(policy);
  pressure.customPlot()->replot();
  return pressure.thresholdCaptions();
}

// A policy flapping for minutes: 2,000 level changes must not become a blob. At the whole-run
// zoom, changes closer than a marker merge into one marker with their count (every change
// counted once), its tooltip says how many went which way, and zooming in splits them again.
// The thresholds' captions are beside the plot (its right-hand axis), where they cover no curve;
// on a short plot the q8 caption gives way to the q4 one, and a family without thresholds has none.
TEST(Plots, ThresholdCaptionsSitBesideThePlot) {
  PressurePlot pressure;
  policy_config policy;
  policy.q8_threshold = 0.8f;
  policy.q4_threshold = 0.95f;
  const auto captions = captionsFor(pressure, policy);
  EXPECT_TRUE(pressure.customPlot()->yAxis2->visible());
  ASSERT_EQ(captions.size(), 2);
  EXPECT_NEAR(captions[0].first, 0.8, 1e-6);
  EXPECT_EQ(captions[0].second, QStringLiteral("q8 ≥ 0.80"));
  EXPECT_EQ(captions[1].second, QStringLiteral("q4 ≥ 0.95"));
  policy.q8_threshold = 0.94f;  // a pixel or two below q4's: no room for both captions
  const auto crowded = captionsFor(pressure, policy);
  ASSERT_EQ(crowded.size(), 1);
  EXPECT_EQ(crowded[0].second, QStringLiteral("q4 ≥ 0.95"));
  policy.family = policy_family::fixed;
  pressure.setPolicy(policy);
  EXPECT_TRUE(pressure.thresholdCaptions().isEmpty());
}

// A q3 threshold gets its line, band and caption above q4's; without one there is none, and a
// q4 caption too close below q3's gives way to it.
TEST(Plots, Q3ThresholdIsDrawnWhenSet) {
  PressurePlot pressure;
  policy_config policy;
  policy.q8_threshold = 0.6f;
  policy.q4_threshold = 0.75f;
  EXPECT_EQ(captionsFor(pressure, policy).size(), 2);
  EXPECT_FALSE(pressure.q3ThresholdShown());
  policy.max_level = precision::q3;
  policy.q3_threshold = 0.9f;
  const auto captions = captionsFor(pressure, policy);
  EXPECT_TRUE(pressure.q3ThresholdShown());
  EXPECT_DOUBLE_EQ(pressure.q3LineValue(), double{0.9f});
  ASSERT_EQ(captions.size(), 3);
  EXPECT_EQ(captions[2].second, QStringLiteral("q3 ≥ 0.90"));
  policy.q4_threshold = 0.89f;  // just below q3: q4's caption gives way to q3's
  const auto crowded = captionsFor(pressure, policy);
  ASSERT_EQ(crowded.size(), 2);
  EXPECT_EQ(crowded[0].second, QStringLiteral("q8 ≥ 0.60"));
  EXPECT_EQ(crowded[1].second, QStringLiteral("q3 ≥ 0.90"));
  policy.family = policy_family::fixed;
  pressure.setPolicy(policy);
  EXPECT_FALSE(pressure.q3ThresholdShown());
}

TEST(Plots, CrowdedLevelChangesAreClusteredWithTheirCount) {
  metrics_history history(1 << 14, 1 << 12);
  PressurePlot pressure;
  pressure.setHistory(&history);
  pressure.resize(700, 320);
  pressure.show();
  auto fresh = std::make_shared<std::vector<step_metrics>>();
  for (std::uint64_t step = 0; step < 8000; ++step) {
    step_metrics m;
    m.step = step;
    m.sim_time_s = static_cast<double>(step) * 0.025;  // 200 s
    m.kv_cache_usage_perc = m.pressure_ewma = 0.8;
    m.level = (step / 4) % 2 ? precision::q8 : precision::fp16;  // a change every 0.1 s
    history.push(m);
    fresh->push_back(m);
  }
  pressure.appendMetrics(fresh);
  pressure.showAll();
  pressure.customPlot()->replot();
  const auto& clusters = pressure.markerClusters();
  const int width = pressure.customPlot()->axisRect()->width();
  ASSERT_GT(width, 300);
  EXPECT_LE(clusters.size(), static_cast<std::size_t>(width / 15 + 2)) << "about one marker per 15 px";
  int counted = 0, up = 0;
  for (const TransitionCluster& c : clusters) {
    counted += c.count();
    up += c.up;
  }
  EXPECT_EQ(static_cast<std::uint64_t>(counted), history.transitions_seen());
  EXPECT_EQ(up, (counted + 1) / 2);  // up first: fp16 -> q8, back, ...
  // Drawn: no single-change triangles at this zoom, only clusters (the last may hold one change).
  EXPECT_LE(pressure.customPlot()->graph(2)->dataCount() + pressure.customPlot()->graph(3)->dataCount(), 1);
  const TransitionCluster& first = clusters.front();
  const QPointF onCurve(pressure.customPlot()->xAxis->coordToPixel(first.time),
                        pressure.customPlot()->yAxis->coordToPixel(first.ewma));
  // The marker sits off the EWMA it counts changes of, not on it.
  const QPointF at = clusterMarkCentre(onCurve, pressure.customPlot()->axisRect()->rect());
  EXPECT_GT(std::abs(at.y() - onCurve.y()), ClusterMarks::diameter / 2 + 2);
  EXPECT_EQ(pressure.markerToolTip(onCurve), QString());
  const QString tip = pressure.markerToolTip(at);
  EXPECT_TRUE(tip.contains(QStringLiteral("%1 level changes").arg(first.count()))) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QStringLiteral("%1 up, %2 down").arg(first.up).arg(first.down))) << tip.toStdString();
  EXPECT_EQ(pressure.markerToolTip(at + QPointF(0, 60)), QString()) << "nothing away from a marker";
  // Zoomed in to 3 s, each change has a marker of its own again.
  pressure.customPlot()->xAxis->setRange(100, 103);
  pressure.customPlot()->replot();
  int singles = 0;
  for (const TransitionCluster& c : pressure.markerClusters()) singles += c.count() == 1 && c.time >= 100 && c.time <= 103;
  EXPECT_GE(singles, 29);
  EXPECT_TRUE(pressure.markerToolTip(QPointF(pressure.customPlot()->xAxis->coordToPixel(pressure.markerClusters()[1000].time),
                                             pressure.customPlot()->yAxis->coordToPixel(0.8)))
                  .startsWith(QStringLiteral("Level ")));
}

}  // namespace
}  // namespace kvscope::ui
