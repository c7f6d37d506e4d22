// Exports: policy configs re-import equal (JSON and TOML, with provenance), a bad file changes
// nothing and says why, plots and sessions are written.
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSlider>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gui_test_support.hpp"
#include "io/policy_file.hpp"
#include "main_window.hpp"
#include "memory_plot.hpp"
#include "policy_panel.hpp"
#include "pressure_plot.hpp"
#include "temp_dir.hpp"

namespace kvscope::ui {
namespace {

MainWindow::Options testOptions() {
  MainWindow::Options o;
  o.persistSettings = false;
  o.loadDescription = QStringLiteral("test load");
  o.model = QStringLiteral("tiny");
  return o;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ExportTest : public ::testing::Test {
 protected:
  ExportTest() : feed(new test::RecordingFeed), window(std::unique_ptr<engine_feed>(feed), testOptions()) {
    // An unusual config: every field away from its default.
    window.policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(613);
    window.policyPanel()->slider(PolicyPanel::q4Threshold)->setValue(877);
    window.policyPanel()->slider(PolicyPanel::hysteresis)->setValue(31);
    window.policyPanel()->slider(PolicyPanel::ewmaAlpha)->setValue(450);
  }
  test::RecordingFeed* feed;
  MainWindow window;
  test::temp_dir dir;
};

TEST_F(ExportTest, ExportedConfigsReimportEqual) {
  const policy_config config = window.policyPanel()->config();
  ASSERT_EQ(config.q8_threshold, 0.613f);
  for (const char* name : {"policy.json", "policy.toml"}) {
    const QString path = QString::fromStdString(dir.file(name));
    QString error;
    ASSERT_TRUE(window.exportPolicyConfig(path, &error)) << error.toStdString();
    const auto back = read_policy_config(path.toStdString());
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, config) << name;
    const std::string text = slurp(path.toStdString());
    EXPECT_NE(text.find("provenance"), std::string::npos) << text;
    EXPECT_NE(text.find("test load"), std::string::npos) << text;
  }
}

TEST_F(ExportTest, ImportedConfigGoesToPanelPlotAndEngine) {
  const QString path = QString::fromStdString(dir.file("in.toml"));
  const policy_config aggressive = *policy_preset("aggressive");
  ASSERT_TRUE(write_policy_config(path.toStdString(), aggressive));
  QString error;
  ASSERT_TRUE(window.importPolicyConfig(path, &error)) << error.toStdString();
  EXPECT_EQ(window.policyPanel()->config(), aggressive);
  EXPECT_EQ(window.pressurePlot()->policy(), aggressive);
  EXPECT_EQ(test::reconfigures(feed->log).back(), aggressive);
}

TEST_F(ExportTest, BadConfigChangesNothingAndNamesTheFile) {
  const std::string path = dir.file("bad.json");
  test::write_text(path, R"({"q8_threshold": 0.9, "q4_threshold": 0.5})");
  const policy_config before = window.policyPanel()->config();
  const std::size_t posted = feed->log.size();
  QString error;
  EXPECT_FALSE(window.importPolicyConfig(QString::fromStdString(path), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("bad.json"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("q4_threshold must be >= q8_threshold"))) << error.toStdString();
  EXPECT_EQ(window.policyPanel()->config(), before);
  EXPECT_EQ(feed->log.size(), posted);
}

TEST_F(ExportTest, PlotsExportAsPngAndPdf) {
  for (QWidget* plot : {static_cast<QWidget*>(window.pressurePlot()), static_cast<QWidget*>(window.memoryPlot())}) {
    const QString png = QString::fromStdString(dir.file("plot.png"));
    const QString pdf = QString::fromStdString(dir.file("plot.pdf"));
    QString error;
    ASSERT_TRUE(window.exportPlot(plot, png, &error)) << error.toStdString();
    ASSERT_TRUE(window.exportPlot(plot, pdf, &error)) << error.toStdString();
    EXPECT_FALSE(QImage(png).isNull());
    QFile f(pdf);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_TRUE(f.read(5) == "%PDF-");
  }
  QString error;
  EXPECT_FALSE(window.exportPlot(window.pressurePlot(), QString::fromStdString(dir.file("plot.gif")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral(".png or .pdf")));
}

TEST_F(ExportTest, SessionRecordsPolicyAndPostedCommands) {
  const QString path = QString::fromStdString(dir.file("s.kvscope.json"));
  QString error;
  ASSERT_TRUE(window.saveSession(path, &error)) << error.toStdString();
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
  EXPECT_EQ(root[QStringLiteral("kvscope_session")].toInt(), 1);
  EXPECT_EQ(root[QStringLiteral("policy")].toObject()[QStringLiteral("q8_threshold")].toDouble(),
            static_cast<double>(0.613f));
  const QJsonArray commands = root[QStringLiteral("commands")].toArray();
  ASSERT_EQ(commands.size(), 4);
  EXPECT_EQ(commands[0].toObject()[QStringLiteral("command")].toString(), QStringLiteral("reconfigure"));
}

}  // namespace
}  // namespace kvscope::ui

namespace kvscope::ui {
namespace {

// The example configs shipped in resources/examples load and match their presets.
TEST(ExampleConfigs, LoadAndMatchThePresets) {
  const std::string dir = KVSCOPE_RESOURCES_DIR "/examples/";
  const auto def = read_policy_config(dir + "policy-default.toml");
  ASSERT_TRUE(def) << def.error();
  EXPECT_EQ(*def, *policy_preset("default"));
  const auto aggressive = read_policy_config(dir + "policy-aggressive.json");
  ASSERT_TRUE(aggressive) << aggressive.error();
  EXPECT_EQ(*aggressive, *policy_preset("aggressive"));
}

}  // namespace
}  // namespace kvscope::ui
