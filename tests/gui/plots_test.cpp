// The plots draw from the bridge's metrics_history: over a long run their graphs follow its
// thinning (bounded), end at the newest step, and keep a marker for every level change.
#include <QApplication>

#include <gtest/gtest.h>

#include <memory>

#include "run/metrics_history.hpp"
#include "memory_plot.hpp"
#include "pressure_plot.hpp"
#include "qcustomplot_include.hpp"

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

}  // namespace
}  // namespace kvscope::ui
