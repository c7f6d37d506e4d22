// main() of every GUI test: a QApplication on the offscreen platform, then GoogleTest.
#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QStandardPaths::setTestModeEnabled(true);  // keep QSettings away from the user's files
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("kvscope-tests"));
  QApplication::setApplicationName(QStringLiteral("kvscope-gui-tests"));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
