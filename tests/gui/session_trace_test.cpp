// A session whose trace changed since it was recorded is not replayed silently: File > Open
// session asks first (and replays only on "Replay anyway"), and `kvscope --session` refuses with
// exit 2, as `kvscope-cli replay` does without --force.
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "io/session_file.hpp"
#include "window/main_window.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::ui {
namespace {

class SessionTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    window = test::makeWindow(test::smallSession(), &feed);
    ASSERT_TRUE(test::stepAndShow(*window, *feed, 5));
    trace = dir.file("trace.csv");
    test::write_text(trace, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,1536,128\n0.7,2048,256\n");
    run_description s = test::smallSession();
    s.load_spec = trace;
    session = dir.file("s.kvscope.json");
    const auto written = write_session(session, s);
    ASSERT_TRUE(written) << written.error();
  }

  QMessageBox* traceChangedBox() const {
    return window->findChild<QMessageBox*>(QStringLiteral("traceChangedBox"));
  }

  runner* feed = nullptr;
  std::unique_ptr<MainWindow> window;
  test::temp_dir dir;
  std::string trace, session;
};

TEST_F(SessionTrace, AnUnchangedTraceReplaysWithoutAsking) {
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  EXPECT_GT(window->importSession(QString::fromStdString(session)), 0u);
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
  EXPECT_EQ(traceChangedBox(), nullptr);
}

TEST_F(SessionTrace, AChangedTraceAsksAndReplaysOnlyWhenTold) {
  test::write_text(trace, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,1537,128\n0.7,2048,256\n");
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  EXPECT_EQ(window->importSession(QString::fromStdString(session)), 0u);
  QMessageBox* box = traceChangedBox();
  ASSERT_NE(box, nullptr);
  EXPECT_TRUE(box->text().contains(QString::fromStdString(trace))) << box->text().toStdString();
  EXPECT_EQ(window->bridge()->feed(), feed);
  EXPECT_EQ(started.count(), 0);
  QPushButton* anyway = nullptr;
  for (auto* b : box->buttons()) {
    if (b->text() == QStringLiteral("Replay anyway")) anyway = qobject_cast<QPushButton*>(b);
  }
  ASSERT_NE(anyway, nullptr);
  anyway->click();
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
}

TEST_F(SessionTrace, TheCommandLineRefusesAChangedTraceWithExitTwo) {
  test::write_text(trace, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,1537,128\n0.7,2048,256\n");
  // With --screenshot a kvscope that wrongly ran the session would still end on its own.
  const auto r = test::run_process({"/usr/bin/env", "QT_QPA_PLATFORM=offscreen", KVSCOPE_GUI_PATH,
                                    "--screenshot", dir.file("x.png"), "--after-ms", "100", "--session",
                                    session});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(trace), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("replay it anyway"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvscope::ui
