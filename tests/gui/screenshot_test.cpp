// `kvscope --screenshot FILE` writes a PNG that is not blank, offscreen; bad arguments exit 2.
#include <QImage>
#include <QSet>

#include <gtest/gtest.h>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

TEST(Screenshot, WritesANonBlankPng) {
  temp_dir dir;
  const std::string path = dir.file("shot.png");
  const auto r = run_process({KVSCOPE_GUI_PATH, "--screenshot", path, "--after-ms", "1500"});
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
  auto r = run_process({KVSCOPE_GUI_PATH, "--screenshot", dir.file("x.png"), "--after-ms", "soon"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("after-ms"), std::string::npos) << r.err;
  r = run_process({KVSCOPE_GUI_PATH, "--screenshot", dir.file("x.png"), "--policy", dir.file("missing.toml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.toml"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvscope::test
