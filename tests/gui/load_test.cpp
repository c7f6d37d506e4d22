// Opening a load: a malformed trace dropped on the window shows the reader's message and the
// previous load keeps running; a good trace, the load panel's settings and a new seed each
// replace the runner (built off the GUI thread) and the plots start over.
#include <QComboBox>
#include <QDropEvent>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QUrl>

#include <gtest/gtest.h>

#include "jobs/engine_bridge.hpp"
#include "panels/engine_options_box.hpp"
#include "gui_test_support.hpp"
#include "load/generator_spec.hpp"
#include "panels/load_panel.hpp"
#include "window/main_window.hpp"
#include "jobs/run_loader.hpp"
#include "panels/run_panel.hpp"
#include "run/option_table.hpp"
#include "common/run_setup.hpp"
#include "temp_dir.hpp"

namespace kvscope::ui {
namespace {

void dropFile(QWidget* target, const QString& path) {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &enter);
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &drop);
}

TEST(OpenLoad, MalformedTraceDroppedShowsTheErrorAndKeepsThePreviousLoadRunning) {
  test::temp_dir dir;
  const std::string trace = dir.file("broken.csv");
  test::write_text(trace, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                          "2023-11-16 18:15:46.68,100,20\n"
                          "not a time,12,3\n");
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  feed->post(play_command{});
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current() && window->bridge()->current()->step > 5; }));
  QSignalSpy failed(window.get(), &MainWindow::runFailed);
  dropFile(window.get(), QString::fromStdString(trace));
  ASSERT_TRUE(test::waitFor([&] { return failed.count() == 1; }));
  const QString message = failed.front().front().toString();
  EXPECT_TRUE(message.contains(QStringLiteral("broken.csv:3:"))) << message.toStdString();
  auto* box = window->findChild<QMessageBox*>(QStringLiteral("errorBox"));
  ASSERT_NE(box, nullptr);
  EXPECT_TRUE(box->isVisible());
  EXPECT_TRUE(box->text().contains(QStringLiteral("broken.csv:3:"))) << box->text().toStdString();
  EXPECT_TRUE(window->loadPanel()->message().contains(QStringLiteral("broken.csv:3:")));
  EXPECT_FALSE(window->loadPanel()->traceSelected()) << "the panel still shows what runs";
  box->close();
  // Nothing changed: the same runner, the same load, still stepping.
  EXPECT_EQ(window->bridge()->feed(), feed);
  EXPECT_EQ(window->currentRun().load_spec, test::smallLoad);
  const std::uint64_t step = feed->latest()->step;
  ASSERT_TRUE(test::waitFor([&] { return feed->latest()->step > step || feed->latest()->finished; }));
}

TEST(OpenLoad, AGoodTraceReplacesTheRunnerAndStartsOver) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 50));
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  const QString trace = QStringLiteral(KVSCOPE_TEST_DATA_DIR "/azure_conv_500.csv");
  ASSERT_GT(window->openTrace(trace), 0u);
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
  EXPECT_NE(window->bridge()->feed(), feed);
  EXPECT_EQ(window->currentRun().load_spec, trace.toStdString());
  EXPECT_EQ(window->currentRun().options.model, "tiny") << "the load panel's engine settings";
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current()->step > 5; }));
  EXPECT_TRUE(window->loadPanel()->traceSelected());
}

// A trace plays at the run panel's pace; "as fast as possible" is one of its speeds and lets
// the engine run unthrottled (at 60 steps/s the 3,000 steps below would take 50 s).
TEST(OpenLoad, ATraceCanPlayAsFastAsPossible) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  QComboBox* speed = window->runPanel()->speedBox();
  const int fastest = speed->findText(QStringLiteral("as fast as possible"));
  ASSERT_GE(fastest, 0);
  EXPECT_EQ(speed->itemData(fastest).toDouble(), 0.0);
  speed->setCurrentIndex(speed->findData(60.0));
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  ASSERT_GT(window->openTrace(QStringLiteral(KVSCOPE_TEST_DATA_DIR "/azure_conv_500.csv")), 0u);
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
  auto* trace = dynamic_cast<runner*>(window->bridge()->feed());
  ASSERT_NE(trace, nullptr);
  speed->setCurrentIndex(fastest);
  const auto logged = trace->sync()->command_log;
  ASSERT_FALSE(logged.empty());
  const auto* pace = std::get_if<speed_command>(&logged.back().command);
  ASSERT_NE(pace, nullptr);
  EXPECT_EQ(pace->steps_per_second, 0.0);
  EXPECT_TRUE(test::waitFor([&] { return trace->latest()->step > 3000 || trace->latest()->finished; },
                            std::chrono::seconds(20)));
}

TEST(OpenLoad, TheLoadPanelBuildsAGeneratorSpecAndRestarts) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  LoadPanel* panel = window->loadPanel();
  panel->rateBox()->setValue(12.5);
  panel->budgetEdit()->setText(QStringLiteral("6MiB"));
  const auto spec = panel->generatorSpec();
  ASSERT_TRUE(spec) << spec.error().toStdString();
  const auto parsed = parse_generator_spec(*spec);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->rate, 12.5);
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  panel->applyButton()->click();
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
  EXPECT_EQ(window->currentRun().load_spec, *spec);
  EXPECT_EQ(window->currentRun().options.budget_bytes, 6ull << 20);
  EXPECT_EQ(window->bridge()->current()->budget_bytes, 6ull << 20);
  // A budget that is not a size is refused at once, and nothing changes.
  panel->budgetEdit()->setText(QStringLiteral("lots"));
  QSignalSpy failed(window.get(), &MainWindow::runFailed);
  EXPECT_EQ(window->applyLoadPanel(), 0u);
  EXPECT_EQ(failed.count(), 1);
  EXPECT_TRUE(panel->message().contains(QStringLiteral("budget")));
  if (auto* box = window->findChild<QMessageBox*>(QStringLiteral("errorBox"))) box->close();
}

// Block size, fp16 tail and migration batch: ranges from the option table, and a restart
// runs with them (the generated load's prefixes hashed per block of the new size).
TEST(OpenLoad, ThePagingOptionsReachTheNewEngine) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  EngineOptionsBox* engine = window->loadPanel()->engineBox();
  for (auto [box, flag] : {std::pair{engine->blockSizeBox(), "block-size"}, {engine->tailTokensBox(), "tail-tokens"},
                           {engine->migrationBatchBox(), "migration-batch"}}) {
    const option_spec* spec = find_option(flag);
    ASSERT_NE(spec, nullptr) << flag;
    EXPECT_EQ(box->minimum(), static_cast<int>(spec->min)) << flag;
    EXPECT_EQ(box->maximum(), static_cast<int>(spec->max)) << flag;
    EXPECT_TRUE(box->toolTip().contains(QString::fromLatin1(flag))) << flag;
  }
  EXPECT_EQ(engine->blockSizeBox()->value(), 16) << "shows the run's own options";
  engine->blockSizeBox()->setValue(32);
  engine->tailTokensBox()->setValue(64);
  engine->migrationBatchBox()->setValue(8);
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  window->loadPanel()->applyButton()->click();
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
  const engine_options& o = window->currentRun().options;
  EXPECT_EQ(o.block_size, 32u);
  EXPECT_EQ(o.tail_tokens, 64u);
  EXPECT_EQ(o.migration_batch, 8u);
  EXPECT_EQ(parse_generator_spec(window->currentRun().load_spec)->block_size, 32u);
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current() != nullptr; }));
  EXPECT_EQ(window->bridge()->current()->pool->frames.block_size, 32u);
}

TEST(OpenLoad, ResetWithANewSeedMakesANewLoadFromThatSeed) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 20));
  // Same seed: a reset_command to the same runner.
  window->runPanel()->reset();
  ASSERT_TRUE(test::waitFor([&] { return feed->latest()->generation == 1; }));
  EXPECT_TRUE(std::holds_alternative<reset_command>(feed->sync()->command_log.back().command));
  // Another seed: a new runner whose generator and K/V data use it.
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  window->runPanel()->seedBox()->setValue(77);
  EXPECT_EQ(window->loadPanel()->seed(), 77u) << "the two seed boxes agree";
  window->runPanel()->reset();
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
  EXPECT_NE(window->bridge()->feed(), feed);
  EXPECT_EQ(window->currentRun().options.seed, 77u);
  EXPECT_EQ(parse_generator_spec(window->currentRun().load_spec)->seed, 77u);
}

}  // namespace
}  // namespace kvscope::ui
