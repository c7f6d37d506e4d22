// The tour's slides for a lecture hall, read back from the PDF they are written to: every text
// outside the block map at 14 pt or more on the page and the narration at 20 pt or more; every
// text has the room it needs on every slide (nothing cut off at these sizes); the footer's prefix
// hits say what the step's narration says; and the map on a slide keeps its colours outside the
// highlight (pale is a block's room not yet written) and outlines its frames.
#include <QFile>
#include <QLabel>
#include <QRegularExpression>

#include <gtest/gtest.h>

#include <algorithm>

#include "plots/block_map_render.hpp"
#include "plots/block_map_widget.hpp"
#include "common/level_legend.hpp"
#include "pdf_text_runs.hpp"
#include "temp_dir.hpp"
#include "common/theme.hpp"
#include "window/tour_controller.hpp"
#include "tour/tour_slide.hpp"

namespace kvscope::ui {
namespace {

const tour_run& slidesTour() {
  static const tour_run run = [] {
    auto r = run_tour(builtin_tour());
    EXPECT_TRUE(r) << (r ? "" : r.error());
    return std::move(*r);
  }();
  return run;
}

std::vector<test::PdfTextRun> exportedRuns() {
  static const std::vector<test::PdfTextRun> runs = [] {
    test::temp_dir dir;
    const QString path = QString::fromStdString(dir.file("slides.pdf"));
    QString error;
    EXPECT_TRUE(exportTourPdf(slidesTour(), path, &error)) << error.toStdString();
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly));
    return test::pdfTextRuns(f.readAll());
  }();
  return runs;
}

TEST(TourSlideType, NarrationAtTwentyPointsAndTheRestAtFourteenOnThePage) {
  const auto runs = exportedRuns();
  const tour_run& tour = slidesTour();
  ASSERT_FALSE(runs.empty());
  // Block ids and logical indices written in the map's cells are the only smaller text.
  const QRegularExpression mapLabel(QStringLiteral("^#?\\d+$"));
  std::vector<int> narrationLines(tour.frames.size(), 0), legendCaptions(tour.frames.size(), 0);
  for (const test::PdfTextRun& r : runs) {
    ASSERT_GE(r.page, 0);
    ASSERT_LT(r.page, static_cast<int>(tour.frames.size()));
    const QString text = r.text.trimmed();
    if (text.isEmpty()) continue;
    if (!mapLabel.match(text).hasMatch()) {
      EXPECT_GE(r.points, 14.0) << "page " << r.page + 1 << ": '" << text.toStdString() << "'";
    }
    const QString narration = QString::fromStdString(tour.script.steps[static_cast<std::size_t>(r.page)].narration);
    if (text.size() >= 20 && narration.contains(text)) {  // long enough to be nothing else
      ++narrationLines[static_cast<std::size_t>(r.page)];
      EXPECT_GE(r.points, 20.0) << "page " << r.page + 1 << ": '" << text.toStdString() << "'";
    }
    if (text == QStringLiteral("cached (refcount 0)")) ++legendCaptions[static_cast<std::size_t>(r.page)];
  }
  for (std::size_t page = 0; page < tour.frames.size(); ++page) {
    EXPECT_GE(narrationLines[page], 3) << "page " << page + 1 << ": the narration's lines were not found";
    EXPECT_EQ(legendCaptions[page], 1) << "page " << page + 1 << ": the legend was not found";
  }
}

TEST(TourSlideType, EveryTextHasTheRoomItNeedsOnEverySlide) {
  TourSlide slide;
  slide.setAttribute(Qt::WA_DontShowOnScreen);
  slide.show();
  const tour_run& tour = slidesTour();
  for (int i = 0; i < static_cast<int>(tour.frames.size()); ++i) {
    slide.showStep(tour, i);
    slide.layout()->activate();
    for (QLabel* l : slide.findChildren<QLabel*>()) {
      if (l->isHidden()) continue;
      EXPECT_LE(l->heightForWidth(l->width()), l->height())
          << "step " << i + 1 << ", " << l->objectName().toStdString() << " is cut off";
      EXPECT_LE(l->geometry().bottom(), slide.height());
    }
    const auto* legend = slide.findChild<ColorLegend*>();
    ASSERT_NE(legend, nullptr);
    EXPECT_LE(legend->heightForWidth(legend->width()), legend->height()) << "step " << i + 1;
  }
}

TEST(TourSlideFooter, PrefixHitsAreWhatTheNarrationSays) {
  TourSlide slide;
  const tour_run& tour = slidesTour();
  const auto* footer = slide.findChild<QLabel*>(QStringLiteral("slideFooter"));
  ASSERT_NE(footer, nullptr);
  // Step 9: "Its first 8 blocks are found in the prefix cache".
  slide.showStep(tour, 8);
  EXPECT_TRUE(footer->text().contains(QStringLiteral("prefix hits 11 blocks (+8 this step)"))) << footer->text().toStdString();
  // Step 12: "12 of its 14 prompt tokens are a prefix hit": three 4-token blocks.
  slide.showStep(tour, 11);
  EXPECT_TRUE(footer->text().contains(QStringLiteral("prefix hits 14 blocks (+3 this step)"))) << footer->text().toStdString();
  slide.showStep(tour, 12);
  EXPECT_TRUE(footer->text().contains(QStringLiteral("prefix hits 14 blocks ·"))) << footer->text().toStdString();
}

// How many of `points` in `image` have exactly `color`.
int pixelsOfColor(const QImage& image, const std::vector<QPoint>& points, const QColor& color) {
  int n = 0;
  for (const QPoint& p : points) n += image.pixelColor(p).rgb() == color.rgb();
  return n;
}

TEST(TourSlideMap, KeepsItsColoursOutsideTheHighlightAndOutlinesFrames) {
  TourSlide slide;
  slide.setAttribute(Qt::WA_DontShowOnScreen);
  slide.show();
  const tour_run& tour = slidesTour();
  const tour_frame& f = tour.frames[8];  // D is highlighted: many blocks are not
  slide.showStep(tour, 8);
  BlockMapWidget* map = slide.blockMap();
  const QImage image = map->grab().toImage();
  ASSERT_DOUBLE_EQ(image.devicePixelRatio(), 1.0);
  const BlockMapLayout& layout = map->layout();
  const Theme& theme = lightTheme();
  // A full fp16 block neither D's nor ringed keeps fp16's own colour, not a pale one.
  const tour_sequence* d = f.state.sequence(f.focus.sequences.at(0));
  ASSERT_NE(d, nullptr);
  const tour_block* plain = nullptr;
  for (const tour_block& b : f.state.blocks) {
    const bool inFocus = std::find(d->table.begin(), d->table.end(), b.id) != d->table.end() ||
                         std::find(f.focus.blocks.begin(), f.focus.blocks.end(), b.id) != f.focus.blocks.end();
    if (!inFocus && !b.cached && b.level == precision::fp16 && b.fill == f.state.block_size) plain = &b;
  }
  ASSERT_NE(plain, nullptr);
  const QRect body = layout.frameRect(static_cast<int>(plain->frame));
  std::vector<QPoint> inside;
  for (int k = 1; k <= 5; ++k) inside.push_back(body.topLeft() + QPoint(body.width() * (4 + k) / 11, body.height() * (5 + k) / 11));
  EXPECT_GE(pixelsOfColor(image, inside, theme.level[0]), 4) << "block #" << plain->id;
  // Between two frames: the outline's grey; between a frame's quarters: the map's background.
  ASSERT_GE(layout.cols, 2);
  const QRect first = layout.frameRect(0);
  std::vector<QPoint> gap, seam;
  const QRect quarter = layout.slotRect(0, 0, 4);  // frame 0 holds four q4 blocks
  ASSERT_EQ(f.snapshot->pool->frames.frames[0].slot_count, 4);
  for (int k = 1; k <= 5; ++k) {
    gap.push_back(QPoint(first.right() + 1, first.top() + first.height() * k / 6));
    seam.push_back(QPoint(quarter.right() + 1, quarter.top() + quarter.height() * k / 6));
  }
  EXPECT_EQ(pixelsOfColor(image, gap, theme.mutedText), 5);
  EXPECT_GE(pixelsOfColor(image, seam, theme.mapBackground), 4);
  EXPECT_EQ(pixelsOfColor(image, seam, theme.mutedText), 0);
}

}  // namespace
}  // namespace kvscope::ui
