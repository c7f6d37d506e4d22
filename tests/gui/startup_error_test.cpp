// Startup errors of kvscope: a dialog as well as stderr exactly where stderr goes unseen (a
// real display, an interactive start, stderr not a terminal), the dialog's text, and the exit
// code unchanged. The binary's own exit codes are in screenshot_test.
#include <QApplication>
#include <QMessageBox>

#include <gtest/gtest.h>

#include "common/startup_error.hpp"

namespace kvscope::ui {
namespace {

TEST(StartupError, ADialogOnlyWhereStderrGoesUnseen) {
  const auto wants = [](const char* platform, bool batch, bool terminal) {
    return wantsStartupDialog({QString::fromLatin1(platform), batch, terminal});
  };
  EXPECT_TRUE(wants("xcb", false, false)) << "a desktop launcher";
  EXPECT_TRUE(wants("wayland", false, false));
  EXPECT_FALSE(wants("xcb", false, true)) << "a terminal: the message is already in view";
  EXPECT_FALSE(wants("xcb", true, false)) << "--screenshot, --export-pdf: nobody to click";
  EXPECT_FALSE(wants("offscreen", false, false));
  EXPECT_FALSE(wants("minimal", false, false));
  EXPECT_FALSE(wants("", false, false)) << "no QApplication: no display at all";
  // Here (the offscreen tests) there is none, so reporting returns at once with the code.
  EXPECT_FALSE(wantsStartupDialog(currentStartupContext(false)));
  EXPECT_EQ(reportStartupError(QStringLiteral("--model: unknown model 'gpt-9'"), 2, currentStartupContext(false)), 2);
}

TEST(StartupError, TheDialogSaysWhatIsWrong) {
  const auto box = makeStartupErrorBox(QStringLiteral("--model: unknown model 'gpt-9'"));
  EXPECT_EQ(box->icon(), QMessageBox::Critical);
  EXPECT_TRUE(box->windowTitle().contains(QStringLiteral("cannot start")));
  EXPECT_EQ(box->informativeText(), QStringLiteral("--model: unknown model 'gpt-9'"));
  EXPECT_TRUE(box->detailedText().contains(QStringLiteral("--help")));
}

}  // namespace
}  // namespace kvscope::ui
