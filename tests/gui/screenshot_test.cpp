// The kvscope binary: `--screenshot FILE` writes a PNG that is not blank (offscreen), bad
// arguments exit 2 with a reason, and without a display it runs the load headless and prints
// the engine's summary.
#include <QImage>
#include <QSet>

#include <gtest/gtest.h>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

const std::string smallLoad = "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=120,seed=3";

TEST(Screenshot, WritesANonBlankPng) {
  temp_dir dir;
  const std::string path = dir.file("shot.png");
  const auto r = run_process({KVSCOPE_GUI_PATH, "--screenshot", path, "--after-ms", "1200"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const QImage image(QString::fromStdString(path));
  ASSERT_FALSE(image.isNull());
  EXPECT_GE(image.width(), 1000);
  EXPECT_GE(image.height(), 700);
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 7) {
    for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
  }
  EXPECT_GT(colours.size(), 20) << "a blank or single-colour image";
}

TEST(Screenshot, BadArgumentsExitTwoWithAReason) {
  temp_dir dir;
  const std::string shot = dir.file("x.png");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--after-ms", "soon"}, "after-ms"},
      {{"--policy", dir.file("missing.toml")}, "missing.toml"},
      {{"--model", "gpt-9"}, "gpt-9"},
      {{"--budget", "lots"}, "--budget"},
      {{"--payload", "bytes"}, "--payload"},
      {{"--format", "excel"}, "--format"},
      {{"--load", dir.file("missing.csv")}, "missing.csv"},
      {{"--load", "gen:rate=-2,count=5"}, "rate"},
      {{"--session", dir.file("missing.json")}, "missing.json"},
      {{"--session", dir.file("s.json"), "--model", "tiny"}, "--session"},
      {{"--model", "llama3-70b", "--budget", "1MiB"}, "budget"},
      {{"--block-size", "0"}, "--block-size"},
  };
  for (const auto& [args, needle] : cases) {
    std::vector<std::string> argv = {KVSCOPE_GUI_PATH, "--screenshot", shot};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = run_process(argv);
    EXPECT_EQ(r.exit_code, 2) << args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args.front() << ": " << r.err;
  }
}

// Without --screenshot, on the offscreen platform (no one to click a dialog): bad arguments
// still end at once with 2 and the reason on stderr.
TEST(Screenshot, BadArgumentsWithoutScreenshotExitTwoWithoutWaiting) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--model", "gpt-9"}, "gpt-9"}, {{"--no-such-option"}, "no-such-option"}, {{"stray"}, "stray"}};
  for (const auto& [args, needle] : cases) {
    std::vector<std::string> argv = {"/usr/bin/env", "QT_QPA_PLATFORM=offscreen", KVSCOPE_GUI_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = run_process(argv);
    EXPECT_EQ(r.exit_code, 2) << args.front() << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
}

TEST(Headless, WithoutADisplayTheEngineRunsAndPrintsItsSummary) {
  const auto r = run_process({"/usr/bin/env", "-u", "QT_QPA_PLATFORM", "-u", "DISPLAY", "-u",
                              "WAYLAND_DISPLAY", KVSCOPE_GUI_PATH, "--load", smallLoad, "--model",
                              "tiny", "--budget", "4MiB", "--payload", "accounting"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no display"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kvscope-cli simulate --load '" + smallLoad + "' --model tiny --budget 4MiB"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("requests        120 total, 120 finished"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-> q4"), std::string::npos) << r.out;
}

// Set but empty is no display too (a shell's `DISPLAY= kvscope`): the summary, not Qt's abort.
TEST(Headless, AnEmptyDisplayVariableIsNoDisplay) {
  const auto r = run_process({"/usr/bin/env", "QT_QPA_PLATFORM=", "DISPLAY=", "WAYLAND_DISPLAY=",
                              KVSCOPE_GUI_PATH, "--load", smallLoad, "--model", "tiny", "--budget",
                              "4MiB", "--payload", "accounting"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no display"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("requests        120 total, 120 finished"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kvscope::test
