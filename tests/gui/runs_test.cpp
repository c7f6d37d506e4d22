// Kept runs: every finished run goes to the run list, which lives in the app data folder (a
// temporary one here) with its baseline, and survives a restart; a run exports as a session
// file that reads back as the same run.
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>

#include "gui_test_support.hpp"
#include "window/comparison_controller.hpp"
#include "io/session_file.hpp"
#include "window/main_window.hpp"
#include "run/summary_compare.hpp"
#include "panels/run_list_panel.hpp"
#include "panels/run_store.hpp"
#include "temp_dir.hpp"

namespace kvscope::ui {
namespace {

QString dirOf(const test::temp_dir& d) { return QString::fromStdString(d.path().string()); }

TEST(Runs, StoreKeepsRunsAndTheBaselineAcrossARestart) {
  test::temp_dir dir;
  run_description a = test::smallSession(), b = a;
  b.options.policy.q8_threshold = 0.6f;
  run_summary sa{}, sb{};
  sa.service.goodput_rps = 1.5;
  sb.service.goodput_rps = 2.25;
  QString idA, idB;
  {
    RunStore store(dirOf(dir));
    idA = store.add(a, sa, QStringLiteral("first"));
    idB = store.add(b, sb, QStringLiteral("second"));
    ASSERT_FALSE(idA.isEmpty());
    ASSERT_NE(idA, idB);
    EXPECT_EQ(store.add(a, sa, QStringLiteral("again")), idA);  // the same run is kept once
    EXPECT_EQ(store.runs().size(), 2);
    EXPECT_TRUE(store.setBaseline(idB));
  }
  RunStore again(dirOf(dir));
  ASSERT_EQ(again.runs().size(), 2);
  ASSERT_NE(again.baseline(), nullptr);
  EXPECT_EQ(again.baseline()->id, idB);
  EXPECT_EQ(again.find(idA)->name, QStringLiteral("first"));
  EXPECT_EQ(again.find(idA)->headline, headline_values(sa));
  const auto reread = read_session(again.sessionPath(idB).toStdString());
  ASSERT_TRUE(reread) << reread.error();
  EXPECT_EQ(session_to_json(*reread), session_to_json(b));
  // Exported, it is the same session.
  QString error;
  ASSERT_TRUE(again.exportRun(idA, QString::fromStdString(dir.file("out.kvscope.json")), &error)) << error.toStdString();
  const auto exported = read_session(dir.file("out.kvscope.json"));
  ASSERT_TRUE(exported);
  EXPECT_EQ(session_to_json(*exported), session_to_json(a));
}

// An index written before the headline had q3's peak reads it as 0 where the run's config could
// not reach q3, so its peak memory still compares, and as unknown where it could.
TEST(Runs, AnIndexWithoutQ3sPeakReadsItFromTheConfig) {
  test::temp_dir dir;
  run_description plain = test::smallSession(), q3 = plain;
  q3.options.policy.family = policy_family::fixed;
  q3.options.policy.fixed_level = precision::q3;
  run_summary s{};
  s.peak_bytes_per_level = {100, 0, 0, 0, 0};
  QString idPlain, idQ3;
  {
    RunStore store(dirOf(dir));
    idPlain = store.add(plain, s, QStringLiteral("plain"));
    idQ3 = store.add(q3, s, QStringLiteral("q3"));
  }
  const std::string index = dir.file("index.json");
  std::string text = test::read_text(index);
  for (auto at = text.find("\"peak_bytes_per_level.q3\""); at != std::string::npos;
       at = text.find("\"peak_bytes_per_level.q3\"")) {
    text.erase(at, text.find('\n', at) - at);  // the key's line, as an older kvscope wrote it
  }
  test::write_text(index, text);
  RunStore again(dirOf(dir));
  const std::size_t q3Peak = headline_metric_keys().size() - 1;
  ASSERT_EQ(headline_metric_keys()[q3Peak], "peak_bytes_per_level.q3");
  ASSERT_NE(again.find(idPlain), nullptr);
  EXPECT_EQ(again.find(idPlain)->headline[q3Peak], 0.0);
  EXPECT_TRUE(std::isnan(again.find(idQ3)->headline[q3Peak]));
}

std::unique_ptr<MainWindow> windowOn(const QString& runs, runner** feed) {
  const run_description s = test::smallSession();
  auto r = test::makeTestRunner(s);
  *feed = r.get();
  MainWindow::Options o;
  o.persistSettings = false;
  o.pollIntervalMs = 10;
  o.runsDirectory = runs;
  return std::make_unique<MainWindow>(std::move(r), s, 0.0, o);
}

TEST(Runs, AFinishedRunIsKeptAndCtrlBPinsItAsTheBaselineForNextTime) {
  test::temp_dir dir;
  runner* feed = nullptr;
  {
    auto window = windowOn(dirOf(dir), &feed);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
    feed->post(play_command{});
    ASSERT_TRUE(test::waitFor([&] { return window->comparison()->runStore()->runs().size() == 1; }, std::chrono::seconds(60)));
    QTest::keyClick(window.get(), Qt::Key_B, Qt::ControlModifier);
    ASSERT_NE(window->comparison()->runStore()->baseline(), nullptr);
    EXPECT_EQ(window->comparison()->runList()->table()->item(0, 0)->text(), QStringLiteral("★"));
  }
  auto next = windowOn(dirOf(dir), &feed);
  ASSERT_EQ(next->comparison()->runStore()->runs().size(), 1);
  ASSERT_NE(next->comparison()->runStore()->baseline(), nullptr);
  EXPECT_EQ(next->comparison()->runList()->table()->rowCount(), 1);
  EXPECT_EQ(next->comparison()->runList()->table()->item(0, 0)->text(), QStringLiteral("★"));
}

}  // namespace
}  // namespace kvscope::ui
