// The block map draws what the snapshot says: pixel colours at known frames, aggregation when
// frames outnumber pixels, hover text, click-to-select and the block table it feeds.
#include <QApplication>
#include <QPaintEvent>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <random>
#include <thread>

#include "plots/block_map_widget.hpp"
#include "panels/block_table_panel.hpp"
#include "gui_test_support.hpp"
#include "run/runner.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {
namespace {

QRgb pixelAt(const QImage& image, QPointF logical) {
  const double dpr = image.devicePixelRatio();
  return image.pixel(static_cast<int>(logical.x() * dpr), static_cast<int>(logical.y() * dpr));
}

// 64 frames: frame 5 one full fp16 block of sequence 1; frame 9 a q4 frame with slot 2 used by
// sequence 2 (full) and the rest free; frame 12 a q8 frame, slot 0 cached, slot 1 shared.
std::shared_ptr<engine_snapshot> knownSnapshot() {
  auto s = test::emptySnapshot(64);
  auto pool = std::make_shared<pool_view>(*s->pool);
  s->pool = pool;
  auto& f = pool->frames.frames;
  f[5].blocks[0] = {1, 0, 16, 1, false, 100};
  f[9].tier = precision::q4;
  f[9].slot_count = 4;
  f[9].blocks[2] = {2, 3, 16, 1, false, 101};
  f[12].tier = precision::q8;
  f[12].slot_count = 2;
  f[12].blocks[0] = {no_sequence, 0, 16, 0, true, 102};
  f[12].blocks[1] = {1, 1, 16, 2, false, 103};
  sequence_summary one;
  one.id = 1;
  one.tokens = 32;
  one.block_table = {{5, 0, precision::fp16, false}, {12, 1, precision::q8, true}};
  sequence_summary two;
  two.id = 2;
  two.tokens = 64;
  two.block_table = {{9, 2, precision::q4, false}};
  pool->sequences = {one, two};
  return s;
}

class BlockMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    map.resize(480, 360);
    map.setSnapshot(knownSnapshot());
    map.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&map));
  }
  BlockMapWidget map;
  const Theme& theme = lightTheme();
};

TEST_F(BlockMapTest, ColourAtAKnownFrameMatchesTheSnapshot) {
  const QImage shot = map.grab().toImage();
  ASSERT_TRUE(map.layout().detailed()) << "64 frames in 480×360 get big cells";
  // A full block is drawn solid in its level's colour; inside the slot, away from the dot.
  const QRectF fp16 = map.slotRect(5, 0);
  EXPECT_EQ(pixelAt(shot, fp16.topLeft() + QPointF(2, 2)), theme.level[0].rgb());
  const QRectF q4 = map.slotRect(9, 2);
  EXPECT_LT(q4.width(), map.frameRect(9).width() / 1.5) << "a q4 block takes a quarter";
  EXPECT_EQ(pixelAt(shot, q4.center()), theme.level[3].rgb());
  EXPECT_EQ(pixelAt(shot, map.slotRect(9, 0).center()), theme.freeFrame.rgb());
  EXPECT_EQ(pixelAt(shot, map.slotRect(12, 0).center()), theme.cachedBlock.rgb());
  EXPECT_EQ(pixelAt(shot, map.frameRect(0).center()), theme.freeFrame.rgb());
  // The shared block carries a dot in its middle.
  EXPECT_EQ(pixelAt(shot, map.slotRect(12, 1).center()), QColor(Qt::white).rgb());
}

TEST_F(BlockMapTest, ColourBySequenceUsesTheOwnersColour) {
  map.setColorMode(BlockColorMode::bySequence);
  const QImage shot = map.grab().toImage();
  EXPECT_EQ(pixelAt(shot, map.slotRect(9, 2).center()), theme.sequenceColor(2).rgb());
  EXPECT_EQ(pixelAt(shot, map.slotRect(5, 0).topLeft() + QPointF(2, 2)), theme.sequenceColor(1).rgb());
}

TEST_F(BlockMapTest, ClickSelectsTheSequenceAndTheTableShowsItsBlocks) {
  BlockTablePanel table;
  table.setSnapshot(map.snapshot());
  QObject::connect(&map, &BlockMapWidget::sequenceSelected, &table, &BlockTablePanel::showSequence);
  QSignalSpy selected(&map, &BlockMapWidget::sequenceSelected);
  QTest::mouseClick(&map, Qt::LeftButton, {}, map.slotRect(5, 0).center().toPoint());
  ASSERT_EQ(selected.count(), 1);
  EXPECT_EQ(selected.front().front().value<sequence_id>(), 1);
  ASSERT_EQ(table.model().rowCount(), 2);
  EXPECT_EQ(table.model().rows()[1].frame, 12u);
  EXPECT_TRUE(table.model().rows()[1].shared);
  // Blocks of other sequences are dimmed; the selected ones keep their colour.
  const QImage shot = map.grab().toImage();
  EXPECT_EQ(pixelAt(shot, map.slotRect(5, 0).topLeft() + QPointF(2, 2)), theme.level[0].rgb());
  EXPECT_NE(pixelAt(shot, map.slotRect(9, 2).center()), theme.level[3].rgb());
  // Clicking a free frame clears the selection.
  QTest::mouseClick(&map, Qt::LeftButton, {}, map.frameRect(0).center().toPoint());
  EXPECT_EQ(map.selectedSequence(), no_sequence);
}

TEST_F(BlockMapTest, HoverTextNamesFrameOwnerLogicalIndexFillAndRefcount) {
  const QString text = map.describeAt(map.slotRect(12, 1).center().toPoint());
  EXPECT_TRUE(text.contains(QStringLiteral("Frame 12"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("sequence 1, logical block 1, 16/16 tokens, refcount 2")))
      << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("cached"))) << text.toStdString();
  EXPECT_TRUE(map.describeAt(QPoint(-5, -5)).isEmpty());
}

// A q3 frame shows its five blocks side by side, each in q3's colour or free, and says so.
TEST(BlockMapQ3, AFrameShowsItsFiveBlocks) {
  auto s = test::emptySnapshot(64);
  auto pool = std::make_shared<pool_view>(*s->pool);
  s->pool = pool;
  frame_info& f = pool->frames.frames[20];
  f.tier = precision::q3;
  f.slot_count = 5;
  for (int slot : {0, 2, 4}) f.blocks[static_cast<std::size_t>(slot)] = {1, slot, 16, 1, false, 200u + slot};
  BlockMapWidget map;
  map.resize(480, 360);
  map.setSnapshot(s);
  map.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&map));
  ASSERT_TRUE(map.layout().detailed());
  const QImage shot = map.grab().toImage();
  const Theme& theme = lightTheme();
  double right = -1;
  for (int slot = 0; slot < 5; ++slot) {
    const QRectF r = map.slotRect(20, slot);
    EXPECT_LT(r.width(), map.frameRect(20).width() / 4) << slot;
    EXPECT_GT(r.left(), right) << "side by side, in order";
    right = r.right();
    const QColor want = slot % 2 == 0 ? theme.level[ordinal(precision::q3)] : theme.freeFrame;
    EXPECT_EQ(pixelAt(shot, r.center()), want.rgb()) << slot;
    const QString text = map.describeAt(r.center().toPoint());
    EXPECT_TRUE(text.contains(QStringLiteral("5 3-bit blocks"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("▸ slot %1").arg(slot))) << text.toStdString();
  }
}

// A random pool, and the same with a few frames changed (fill, tier, owner, cached).
frame_map randomPool(int frames, std::uint32_t seed) {
  std::mt19937 rng(seed);
  frame_map map;
  map.frames.assign(static_cast<std::size_t>(frames), frame_info{});
  for (frame_info& f : map.frames) {
    const auto kind = rng() % 5;
    if (kind == 0) continue;
    constexpr precision tiers[] = {precision::fp16, precision::fp16, precision::q8, precision::q4, precision::q3};
    f.tier = tiers[kind];
    f.slot_count = static_cast<std::uint8_t>(slots_per_frame(f.tier));
    for (int i = 0; i < f.slot_count; ++i) {
      f.blocks[static_cast<std::size_t>(i)] = {static_cast<sequence_id>(rng() % 50), i,
                                               static_cast<std::uint16_t>(rng() % 17),
                                               static_cast<std::uint16_t>(rng() % 3), rng() % 7 == 0,
                                               static_cast<block_id>(rng() % 100000)};
    }
  }
  return map;
}

// Redrawing only the grid rows whose frames changed gives the image a full render gives, in
// every kind of layout: big detailed cells, small cells, a pixel per frame, aggregated pixels.
TEST(BlockMapRender, RedrawingChangedRowsEqualsAFullRender) {
  const auto colors = BlockMapColors::fromTheme(lightTheme());
  for (const auto& [size, frames] : {std::pair{QSize(480, 360), 300}, {QSize(300, 200), 4000},
                                     {QSize(200, 150), 30000}, {QSize(100, 80), 50000}}) {
    const auto layout = BlockMapLayout::compute(size, frames);
    for (const auto mode : {BlockColorMode::byPrecision, BlockColorMode::bySequence}) {
      const frame_map before = randomPool(frames, 1);
      frame_map after = before;
      const frame_map other = randomPool(frames, 2);
      for (int i = 0; i < 7; ++i) {
        const auto f = static_cast<std::size_t>((i * 7919) % frames);
        after.frames[f] = other.frames[f];
      }
      QImage partial, full;
      renderBlockMap(partial, before, layout, colors, mode, {});
      const std::vector<int> rows = changedGridRows(before, after, layout);
      EXPECT_LE(rows.size(), 7u);
      EXPECT_FALSE(rows.empty());
      ASSERT_TRUE(renderBlockMapRows(partial, after, layout, colors, mode, {}, rows));
      renderBlockMap(full, after, layout, colors, mode, {});
      EXPECT_EQ(partial, full) << "cell " << layout.cell << ", " << layout.framesPerPixel << " frames/px";
    }
  }
}

// The widget takes that path when only frames change: what it shows is still the snapshot.
TEST_F(BlockMapTest, AFewChangedFramesShowAsAFreshMapWould) {
  auto next = knownSnapshot();
  auto pool = std::make_shared<pool_view>(*next->pool);
  pool->frames.frames[40].blocks[0] = {1, 2, 9, 1, false, 104};
  next->pool = pool;
  // Catch the region the next paint covers: the changed frame's row, not the whole map.
  struct PaintRegion : QObject {
    QRegion region;
    bool eventFilter(QObject*, QEvent* e) override {
      if (e->type() == QEvent::Paint) region += static_cast<QPaintEvent*>(e)->region();
      return false;
    }
  } painted;
  QApplication::processEvents();
  map.installEventFilter(&painted);
  map.setSnapshot(next);
  ASSERT_TRUE(test::waitFor([&] { return !painted.region.isEmpty(); }));
  map.removeEventFilter(&painted);
  EXPECT_TRUE(painted.region.contains(map.frameRect(40).toAlignedRect().adjusted(1, 1, -1, -1)));
  EXPECT_LT(painted.region.boundingRect().height(), map.height() / 2);
  const QImage updated = map.grab().toImage();
  BlockMapWidget fresh;
  fresh.resize(map.size());
  fresh.setSnapshot(next);
  fresh.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&fresh));
  EXPECT_EQ(updated, fresh.grab().toImage());
  EXPECT_NE(pixelAt(updated, map.frameRect(40).center()), pixelAt(updated, map.frameRect(41).center()));
}

TEST(BlockMapRender, MoreFramesThanPixelsAreAggregatedNotDropped) {
  const auto layout = BlockMapLayout::compute(QSize(100, 80), 50'000);
  ASSERT_GT(layout.framesPerPixel, 1);
  EXPECT_LE(layout.units(), layout.cols * layout.rows);
  EXPECT_GE(static_cast<long long>(layout.units()) * layout.framesPerPixel, 50'000);
  // Half the frames of one pixel used (fp16), half free: the pixel is the mix of both colours.
  frame_map map;
  map.frames.assign(50'000, frame_info{});
  for (int f = 0; f < layout.framesPerPixel / 2; ++f) map.frames[static_cast<std::size_t>(f)].blocks[0] = {0, f, 16, 1, false, static_cast<block_id>(f)};
  const auto colors = BlockMapColors::fromTheme(lightTheme());
  QImage image;
  renderBlockMap(image, map, layout, colors, BlockColorMode::byPrecision, {});
  const QColor px = image.pixelColor(layout.originX, layout.originY);
  const QColor used = lightTheme().level[0], unused = lightTheme().freeFrame;
  const double share = (layout.framesPerPixel / 2) / static_cast<double>(layout.framesPerPixel);
  EXPECT_NEAR(px.red(), unused.red() + (used.red() - unused.red()) * share, 2);
  EXPECT_NEAR(px.blue(), unused.blue() + (used.blue() - unused.blue()) * share, 2);
  // The last frame lands on a pixel inside the image.
  const auto hit = layout.hitTest(layout.frameRect(49'999).topLeft());
  EXPECT_LE(hit.firstFrame, 49'999);
  EXPECT_GE(hit.lastFrame, 49'999);
}

// A snapshot of the real engine (through its runner): every full, unshared block is drawn in
// its tier's colour, and the engine has made q8 and q4 blocks by then.
TEST(BlockMapRender, ColourMatchesARealEngineSnapshot) {
  auto feed = test::makeTestRunner(test::smallSession());
  feed->post(step_command{150});  // the small load is at q4 by step 139
  feed->wait_until([](const engine_snapshot& s) { return s.step >= 150; });
  const auto snapshot = feed->sync();
  ASSERT_EQ(snapshot->step, 150u);
  BlockMapWidget map;
  map.resize(900, 600);
  map.setSnapshot(snapshot);
  map.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&map));
  ASSERT_TRUE(map.layout().detailed());
  const QImage shot = map.grab().toImage();
  std::array<int, kv_level_count> checked{};  // per tier
  for (std::size_t f = 0; f < snapshot->pool->frames.frames.size(); ++f) {
    const frame_info& fr = snapshot->pool->frames.frames[f];
    for (int s = 0; s < fr.slot_count; ++s) {
      const block_slot& slot = fr.blocks[static_cast<std::size_t>(s)];
      if (slot.refcount != 1 || slot.cached || slot.fill != snapshot->pool->frames.block_size) continue;
      const QRectF r = map.slotRect(static_cast<int>(f), s);
      EXPECT_EQ(pixelAt(shot, r.topLeft() + QPointF(1, 1)), lightTheme().levelColor(fr.tier).rgb())
          << "frame " << f << " slot " << s;
      ++checked[static_cast<std::size_t>(ordinal(fr.tier))];
    }
  }
  EXPECT_GT(checked[ordinal(precision::fp16)], 3);
  EXPECT_GT(checked[ordinal(precision::q8)] + checked[ordinal(precision::q4)], 3);
}

}  // namespace
}  // namespace kvscope::ui
