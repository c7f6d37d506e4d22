// Rejected requests are shown: the statistics panel counts them and says why the newest was
// refused (the last few in its tooltip), and the status bar tells of each new one.
#include <QLabel>
#include <QStatusBar>

#include <gtest/gtest.h>

#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "common/live_label.hpp"
#include "window/main_window.hpp"
#include "plots/memory_plot.hpp"
#include "panels/stats_panel.hpp"

namespace kvscope::ui {
namespace {

TEST(Stats, RejectedRequestsAreCountedWithTheirReasons) {
  // 2 MiB on the tiny model: a 20,000-token prompt never fits, the 200-token ones do.
  run_description s = test::smallSession();
  s.load_spec = "gen:rate=20,prompt=zipf:1.1:20000,output=fixed:8,count=60,seed=5";
  s.options.budget_bytes = 2ull << 20;
  runner* feed = nullptr;
  auto window = test::makeWindow(s, &feed);
  StatsPanel* stats = window->statsPanel();
  window->bridge()->poll();
  EXPECT_EQ(stats->valueText(QStringLiteral("rejected")), QStringLiteral("0"));
  EXPECT_EQ(stats->rejectionText(), QString());
  feed->post(play_command{});
  ASSERT_TRUE(test::waitFor([&] {
    const auto now = window->bridge()->current();
    return now && now->finished && window->bridge()->current() == feed->latest();
  }));
  const auto end = window->bridge()->current();
  ASSERT_GT(end->rejected_total, 0u) << "the load should have requests too long for the pool";
  ASSERT_TRUE(test::waitFor([&] {
    return stats->valueText(QStringLiteral("rejected")) == QString::number(end->rejected_total);
  }));
  const rejected_request& newest = end->recent_rejections.back();
  const QString text = stats->rejectionText();
  EXPECT_TRUE(text.contains(QStringLiteral("request %1").arg(newest.request_id))) << text.toStdString();
  EXPECT_TRUE(text.contains(QString::fromStdString(newest.reason))) << text.toStdString();
  const auto* reason = stats->findChild<QLabel*>(QStringLiteral("rejectionReason"));
  ASSERT_NE(reason, nullptr);
  for (const rejected_request& r : end->recent_rejections) {
    EXPECT_TRUE(reason->toolTip().contains(QStringLiteral("request %1: ").arg(r.request_id)))
        << reason->toolTip().toStdString();
  }
  // The count per cause adds up to the total, and each cause that occurred is in the tooltip.
  std::uint64_t counted = 0;
  for (std::size_t i = 0; i < end->rejected_by_cause.size(); ++i) {
    counted += end->rejected_by_cause[i];
    if (end->rejected_by_cause[i] == 0) continue;
    const std::string_view cause = describe(static_cast<rejection_cause>(i));
    const QString line = QStringLiteral("%1 %2").arg(end->rejected_by_cause[i]).arg(
        QString::fromUtf8(cause.data(), static_cast<qsizetype>(cause.size())));
    EXPECT_TRUE(reason->toolTip().contains(line)) << line.toStdString() << " in " << reason->toolTip().toStdString();
  }
  EXPECT_EQ(counted, end->rejected_total);
  EXPECT_GT(end->rejected_by_cause[static_cast<std::size_t>(rejection_cause::larger_than_pool)], 0u);
  EXPECT_TRUE(window->statusBar()->currentMessage().contains(QStringLiteral("rejected")) ||
              window->statusBar()->currentMessage().contains(QStringLiteral("load is over")))
      << window->statusBar()->currentMessage().toStdString();
}

// Once every request has finished, the blocks the prefix cache keeps are cached, not in use:
// the block map's header, the memory summary and the metrics agree with the pressure (0).
TEST(Stats, CachedPrefixBlocksAreTheirOwnCategoryEverywhere) {
  run_description s = test::smallSession();
  s.load_spec = "gen:rate=20,prompt=fixed:200,output=fixed:8,count=40,seed=5";
  runner* feed = nullptr;
  auto window = test::makeWindow(s, &feed);
  feed->post(play_command{});
  ASSERT_TRUE(test::waitFor([&] {
    const auto now = window->bridge()->current();
    return now && now->finished && window->bridge()->current() == feed->latest();
  }));
  const auto end = window->bridge()->current();
  window->bridge()->poll();
  const step_metrics& m = end->latest;
  EXPECT_EQ(m.kv_cache_usage_perc, 0.0);
  std::uint64_t held = m.scale_bytes;
  for (std::uint64_t b : m.bytes_per_level) held += b;
  ASSERT_GT(m.cached_bytes, 0u) << "full prompt blocks stay cached for prefix hits";
  EXPECT_EQ(m.cached_bytes, held) << "nothing is in use once every request finished";
  const frame_counts counts = count_frames(end->pool->frames);
  EXPECT_EQ(counts.in_use, 0u);
  EXPECT_GT(counts.cached, 0u);
  EXPECT_EQ(counts.in_use + counts.cached + counts.free, end->pool->frames.frames.size());
  const auto* header = window->findChild<LiveLabel*>(QStringLiteral("mapDetails"));
  ASSERT_NE(header, nullptr);
  ASSERT_TRUE(test::waitFor([&] { return header->text().contains(QStringLiteral("· 0 in use · ")); }))
      << header->text().toStdString();
  EXPECT_TRUE(header->text().contains(QStringLiteral("· %1 cached · 0 sequences running").arg(counts.cached)))
      << header->text().toStdString();
  const MemoryPlot* memory = window->memoryPlot();
  EXPECT_TRUE(test::waitFor([&] { return memory->summaryText().contains(QStringLiteral("In use 0 B</b>, <b>cached ")); }))
      << memory->summaryText().toStdString();
}

}  // namespace
}  // namespace kvscope::ui
