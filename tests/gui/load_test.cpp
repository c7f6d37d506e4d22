// Opening a load: a malformed trace dropped on the window shows the reader's message and the
// previous load keeps running; a good one replaces the feed and the plots start over.
#include <QDropEvent>
#include <QMessageBox>
#include <QMimeData>
#include <QTest>
#include <QUrl>

#include <gtest/gtest.h>

#include "engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "main_window.hpp"
#include "pressure_plot.hpp"
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

TEST(OpenLoad, MalformedTraceShowsTheErrorAndKeepsThePreviousLoad) {
  test::temp_dir dir;
  const std::string trace = dir.file("broken.csv");
  test::write_text(trace, "TIMESTAMP,ContextTokens,GeneratedTokens\nnot a time,12,3\n");
  MainWindow::Options options;
  options.persistSettings = false;
  int calls = 0;
  options.openLoad = [&calls](const QString& path) -> expected<std::unique_ptr<engine_feed>, std::string> {
    ++calls;
    return unexpected{path.toStdString() + ":2: TIMESTAMP: 'not a time' is not a timestamp"};
  };
  auto* feed = new test::RecordingFeed;
  MainWindow window(std::unique_ptr<engine_feed>(feed), options);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  const auto before = window.bridge()->current();
  dropFile(&window, QString::fromStdString(trace));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(window.bridge()->feed(), feed) << "the previous load keeps running";
  EXPECT_EQ(window.bridge()->current(), before);
  auto* box = window.findChild<QMessageBox*>(QStringLiteral("errorBox"));
  ASSERT_NE(box, nullptr);
  EXPECT_TRUE(box->isVisible());
  EXPECT_TRUE(box->text().contains(QStringLiteral("broken.csv:2: TIMESTAMP"))) << box->text().toStdString();
  box->close();
}

TEST(OpenLoad, AGoodLoadReplacesTheFeedAndStartsOver) {
  MainWindow::Options options;
  options.persistSettings = false;
  test::RecordingFeed* opened = nullptr;
  options.openLoad = [&opened](const QString&) -> expected<std::unique_ptr<engine_feed>, std::string> {
    opened = new test::RecordingFeed(test::emptySnapshot(128));
    return std::unique_ptr<engine_feed>(opened);
  };
  auto snap = test::emptySnapshot(64);
  snap->step = 500;
  MainWindow window(std::make_unique<test::RecordingFeed>(snap), options);
  QString error;
  ASSERT_TRUE(window.openLoad(QStringLiteral("/data/good.csv"), &error)) << error.toStdString();
  ASSERT_NE(opened, nullptr);
  EXPECT_EQ(window.bridge()->feed(), opened);
  EXPECT_EQ(window.bridge()->current()->frames.frames.size(), 128u);
}

TEST(OpenLoad, WithoutALoaderTheWindowSaysSo) {
  MainWindow::Options options;
  options.persistSettings = false;
  auto* feed = new test::RecordingFeed;
  MainWindow window(std::unique_ptr<engine_feed>(feed), options);
  QString error;
  EXPECT_FALSE(window.openLoad(QStringLiteral("/data/x.csv"), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("/data/x.csv")));
  EXPECT_EQ(window.bridge()->feed(), feed);
}

}  // namespace
}  // namespace kvscope::ui
