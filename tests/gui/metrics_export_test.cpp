// The metrics CSV of a run longer than the 65,536 steps the window keeps has every step (the
// session run again headless, its last steps checked against the window's); when the re-run
// cannot give this run's steps, the file has the kept ones and the message says which are not.
#include <QSignalSpy>
#include <QSlider>

#include <gtest/gtest.h>

#include <sstream>

#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "io/metrics_csv.hpp"
#include "window/main_window.hpp"
#include "jobs/metrics_export.hpp"
#include "panels/policy_panel.hpp"
#include "temp_dir.hpp"

namespace kvscope::ui {
namespace {

std::vector<std::string> lines(const std::string& path) {
  std::istringstream in(test::read_text(path));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// About 80,000 steps in accounting mode: requests one after another, each 1,000 tokens long.
run_description longSession() {
  run_description s = test::smallSession();
  s.load_spec = "gen:rate=0.08,prompt=fixed:64,output=fixed:1000,count=120,seed=1";
  return s;
}

TEST(MetricsExport, ARunLongerThanTheWindowKeepsHasEveryStep) {
  test::temp_dir dir;
  runner* feed = nullptr;
  auto window = test::makeWindow(longSession(), &feed);
  // Tuned along the way, so the re-run has a command log to follow.
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 20000));
  window->policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(600);
  feed->post(play_command{});
  ASSERT_TRUE(test::waitFor([&] {
    window->bridge()->poll();
    const auto s = window->bridge()->current();
    return s && s->finished && s == feed->latest();
  }, std::chrono::seconds(60)));
  const auto end = window->bridge()->current();
  const std::uint64_t steps = end->step;
  ASSERT_GT(steps, 70000u);
  const std::vector<step_metrics> kept = window->bridge()->history().recent();
  ASSERT_EQ(kept.size(), std::size_t{1} << 16) << "the window keeps the newest 65,536 steps";
  ASSERT_GT(kept.front().step, 0u);

  const QString path = QString::fromStdString(dir.file("metrics.csv"));
  QSignalSpy exported(window.get(), &MainWindow::metricsExported);
  QString error;
  ASSERT_TRUE(window->exportMetrics(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return exported.count() == 1; }, std::chrono::seconds(60)));
  EXPECT_TRUE(exported.front().at(1).toBool()) << exported.front().at(2).toString().toStdString();
  EXPECT_TRUE(exported.front().at(2).toString().contains(QStringLiteral("all %1 steps").arg(steps)));
  const auto csv = lines(path.toStdString());
  ASSERT_EQ(csv.size(), steps + 1);
  EXPECT_EQ(csv.front(), metrics_csv_header());
  for (std::uint64_t i = 0; i < steps; i += 997) {
    EXPECT_EQ(csv[i + 1].substr(0, csv[i + 1].find(',')), std::to_string(i)) << "row " << i;
  }
  // The newest steps are the ones the window showed, bit for bit.
  const std::size_t first = csv.size() - kept.size();
  for (std::size_t i = 0; i < kept.size(); ++i) {
    ASSERT_EQ(csv[first + i], metrics_csv_row(kept[i])) << "step " << kept[i].step;
  }
}

// The fallback, driven directly: a re-run that does not give this run's steps (here the kept
// steps are not what the session makes) writes the kept steps and names the missing ones.
TEST(MetricsExport, WhenTheRerunDiffersTheFileHasTheKeptStepsAndSaysWhichAreMissing) {
  test::temp_dir dir;
  run_description s = test::smallSession();
  s.steps = 300;
  std::vector<step_metrics> kept;
  for (std::uint64_t step = 200; step < 300; ++step) {
    step_metrics m;
    m.step = step;
    m.sim_time_s = static_cast<double>(step);
    kept.push_back(m);
  }
  const QString path = QString::fromStdString(dir.file("m.csv"));
  const std::atomic<bool> cancelled{false};
  const auto r = MetricsExport::write(s, kept, path, cancelled);
  EXPECT_TRUE(r.written);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.rows, 100u);
  const std::string message = r.message.toStdString();
  EXPECT_NE(message.find("only the last 100 of 300 steps (steps 200 to 299)"), std::string::npos) << message;
  EXPECT_NE(message.find("steps 0 to 199 are not in it"), std::string::npos) << message;
  EXPECT_NE(message.find("step 200 came out differently"), std::string::npos) << message;
  const auto csv = lines(path.toStdString());
  ASSERT_EQ(csv.size(), 101u);
  EXPECT_EQ(csv[1], metrics_csv_row(kept.front()));
  // A path that cannot be written: nothing, and the message names it.
  const auto none = MetricsExport::write(s, kept, QString::fromStdString(dir.file("no/such/m.csv")), cancelled);
  EXPECT_FALSE(none.written);
  EXPECT_TRUE(none.message.contains(QStringLiteral("m.csv"))) << none.message.toStdString();
}

}  // namespace
}  // namespace kvscope::ui
