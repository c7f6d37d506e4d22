// A followed sequence on a huge pool (262,144 frames, more than the map has pixels for one
// square each): its frames are marked big enough to find, the rest dimmed, and the map fills
// its height instead of leaving empty bands above and below.
#include <QTest>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "plots/block_map_widget.hpp"
#include "gui_test_support.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {
namespace {

constexpr std::uint32_t hugePoolFrames = 262'144;
constexpr sequence_id followedId = 1;

// Every frame in use by one of many sequences (fp16, every fifth frame two q8 halves), and
// sequence 1 holding one fp16 block in each of `followed` (in that logical order).
std::shared_ptr<engine_snapshot> hugeFollowSnapshot(const std::vector<std::uint32_t>& followed) {
  auto s = test::emptySnapshot(hugePoolFrames);
  auto pool = std::make_shared<pool_view>(*s->pool);
  s->pool = pool;
  auto& frames = pool->frames.frames;
  for (std::uint32_t f = 0; f < hugePoolFrames; ++f) {
    const auto owner = static_cast<sequence_id>(10 + f % 300);
    frames[f].blocks[0] = {owner, 0, 16, 1, false, static_cast<block_id>(2 * f)};
    if (f % 5 == 0) {
      frames[f].tier = precision::q8;
      frames[f].slot_count = 2;
      frames[f].blocks[1] = {owner, 1, 16, 1, false, static_cast<block_id>(2 * f + 1)};
    }
  }
  sequence_summary seq;
  seq.id = followedId;
  for (std::size_t i = 0; i < followed.size(); ++i) {
    frame_info& f = frames[followed[i]];
    f = frame_info{};
    f.blocks[0] = {followedId, static_cast<std::int32_t>(i), 16, 1, false, static_cast<block_id>(1'000'000 + i)};
    seq.block_table.push_back({followed[i], 0, precision::fp16, false});
  }
  pool->sequences = {seq};
  return s;
}

// Forty frames spread over the map, none in the outer few columns or rows (a mark there is
// moved inside the image, so its centre is not the frame's).
std::vector<std::uint32_t> framesAwayFromTheEdges(const BlockMapLayout& l) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t f = 3001; out.size() < 40 && f < hugePoolFrames; f += 6007) {
    const int unit = static_cast<int>(f) / l.framesPerPixel;
    const int col = unit % l.cols, row = unit / l.cols;
    if (col < 8 || col >= l.cols - 8 || row < 8 || row >= l.rows - 8) continue;
    out.push_back(f);
  }
  return out;
}

QPoint markCentre(const BlockMapLayout& l, std::uint32_t frame) {
  const QRect r = l.frameRect(static_cast<int>(frame));
  return {r.x() + r.width() / 2, r.y() + r.height() / 2};
}

// The area of the main window's map at 1366×768 (2 frames a pixel), and a bigger one (1 frame
// a pixel, rows stretched almost four times).
class BlockMapFollowTest : public ::testing::TestWithParam<QSize> {};

TEST_P(BlockMapFollowTest, FollowedFramesAreMarkedTheRestDimmedAndNoBandIsLeftEmpty) {
  BlockMapWidget map;
  map.resize(GetParam());
  map.setSnapshot(hugeFollowSnapshot({}));
  map.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&map));
  map.grab();  // lays the map out
  const std::vector<std::uint32_t> followed = framesAwayFromTheEdges(map.layout());
  ASSERT_GE(followed.size(), 20u);
  map.setSnapshot(hugeFollowSnapshot(followed));
  map.selectSequence(followedId);
  ASSERT_EQ(map.selectedSequence(), followedId);
  const QImage shot = map.grab().toImage();
  const BlockMapLayout& l = map.layout();
  ASSERT_EQ(shot.size(), l.size) << "one device pixel per logical one here";
  ASSERT_TRUE(l.marksFollowed()) << "cell " << l.cell;
  const Theme& theme = lightTheme();

  // Each followed frame: a 5×5 square of its level's undimmed colour, ringed in the text colour.
  for (const std::uint32_t f : followed) {
    const QPoint c = markCentre(l, f);
    for (int dy = -2; dy <= 2; ++dy) {
      for (int dx = -2; dx <= 2; ++dx) {
        ASSERT_EQ(shot.pixel(c.x() + dx, c.y() + dy), theme.level[0].rgb())
            << "frame " << f << " at " << dx << "," << dy;
      }
    }
    EXPECT_EQ(shot.pixel(c.x() - 3, c.y()), theme.text.rgb()) << "frame " << f;
    EXPECT_EQ(shot.pixel(c.x(), c.y() + 3), theme.text.rgb()) << "frame " << f;
  }
  // The rest is dimmed: the undimmed fp16 and q8 colours are found only inside the marks.
  long long vivid = 0;
  for (int y = 0; y < shot.height(); ++y) {
    for (int x = 0; x < shot.width(); ++x) {
      const QRgb px = shot.pixel(x, y);
      vivid += px == theme.level[0].rgb() || px == theme.level[1].rgb();
    }
  }
  EXPECT_LE(vivid, static_cast<long long>(followed.size()) * 25);
  // No empty band: every line of pixels, top to bottom, starts with a frame.
  const QRgb background = theme.mapBackground.rgb();
  for (int y = 0; y < shot.height(); ++y) {
    ASSERT_NE(shot.pixel(l.originX, y), background) << "line " << y << " of " << shot.height();
    ASSERT_GE(l.hitTest(QPoint(l.originX, y)).firstFrame, 0) << "line " << y;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, BlockMapFollowTest, ::testing::Values(QSize(970, 186), QSize(1280, 800)),
                         [](const ::testing::TestParamInfo<QSize>& size) {
                           return std::to_string(size.param.width()) + "x" + std::to_string(size.param.height());
                         });

// The same at a device pixel ratio of 2 (marks twice as big), straight through the renderer:
// every pixel away from the marks is its frames' dimmed colour; inside each mark, the
// undimmed one over at least (side - 2 rings)² pixels.
TEST(BlockMapFollowRender, MarksAtTwiceTheScaleAndEveryOtherPixelDimmed) {
  BlockMapLayout l = BlockMapLayout::compute(QSize(1940, 372), static_cast<int>(hugePoolFrames));
  l.markSide = 14;
  ASSERT_TRUE(l.marksFollowed());
  ASSERT_GT(l.rowSpan, 0) << "small cells fill the height";
  const std::vector<std::uint32_t> followed = framesAwayFromTheEdges(l);
  const auto snapshot = hugeFollowSnapshot(followed);
  const frame_map& map = snapshot->pool->frames;
  SlotMask highlight(hugePoolFrames, 0);
  for (const std::uint32_t f : followed) highlight[f] = 1;
  const auto colors = BlockMapColors::fromTheme(lightTheme());
  QImage image;
  renderBlockMap(image, map, l, colors, BlockColorMode::byPrecision, highlight);
  drawFollowMarks(image, map, l, colors, BlockColorMode::byPrecision, highlight);

  const int inner = 14 - 2 * 2;
  for (const std::uint32_t f : followed) {
    const QPoint c = markCentre(l, f);
    for (int dy = -inner / 2; dy < inner / 2; ++dy) {
      for (int dx = -inner / 2; dx < inner / 2; ++dx) {
        ASSERT_EQ(image.pixel(c.x() + dx, c.y() + dy), colors.level[0]) << "frame " << f;
      }
    }
  }
  const auto nearAMark = [&](int x, int y) {
    for (const std::uint32_t f : followed) {
      const QPoint c = markCentre(l, f);
      if (std::abs(x - c.x()) <= 8 && std::abs(y - c.y()) <= 8) return true;
    }
    return false;
  };
  int checked = 0;
  for (int y = 0; y < image.height(); y += 3) {
    for (int x = 0; x < image.width(); x += 7) {
      const auto hit = l.hitTest(QPoint(x, y));
      if (hit.firstFrame < 0 || nearAMark(x, y)) continue;
      const QRgb dimmed = frameMeanColor(map.frames[static_cast<std::size_t>(hit.firstFrame)], colors,
                                         BlockColorMode::byPrecision, highlight[static_cast<std::size_t>(hit.firstFrame)], true);
      ASSERT_EQ(hit.firstFrame, hit.lastFrame) << "one frame a pixel at this size";
      ASSERT_EQ(image.pixel(x, y), dimmed) << "pixel " << x << "," << y;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20'000);
}

// Stretched rows of small detailed cells: each quarter's rectangle (what hover and the block
// table's focus ring use) is where the renderer drew it.
TEST(BlockMapFollowRender, StretchedRowsDrawEachSlotInsideItsRectangle) {
  const BlockMapLayout l = BlockMapLayout::compute(QSize(300, 200), 4000);
  ASSERT_EQ(l.cell, 3);
  ASSERT_GT(l.rowHeight(0), l.cell) << "rows stretched";
  EXPECT_EQ(l.rowTop(l.rows), 200) << "the last row ends at the bottom";
  frame_map map;
  map.block_size = 16;
  map.frames.assign(4000, frame_info{});
  for (frame_info& f : map.frames) {
    f.tier = precision::q4;
    f.slot_count = 4;
    for (int s = 0; s < 4; ++s) f.blocks[static_cast<std::size_t>(s)] = {s, 0, 16, static_cast<std::uint16_t>(s % 2 + 1), false, 1};
    f.blocks[3] = {};  // free: a different colour from the used quarters
  }
  const auto colors = BlockMapColors::fromTheme(lightTheme());
  QImage image;
  renderBlockMap(image, map, l, colors, BlockColorMode::bySequence, {});
  for (const int f : {0, 101, 1777, 3999}) {
    for (int s = 0; s < 4; ++s) {
      const QRect r = l.slotRect(f, s, 4);
      ASSERT_FALSE(r.isEmpty());
      const QRgb want = slotColor(map.frames[static_cast<std::size_t>(f)].blocks[static_cast<std::size_t>(s)],
                                  precision::q4, colors, BlockColorMode::bySequence, false);
      for (int y = r.top(); y <= r.bottom(); ++y) {
        for (int x = r.left(); x <= r.right(); ++x) ASSERT_EQ(image.pixel(x, y), want) << "frame " << f << " slot " << s;
      }
      EXPECT_EQ(l.hitTest(r.center()).firstFrame, f);
    }
  }
}

}  // namespace
}  // namespace kvscope::ui
