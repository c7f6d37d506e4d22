// The map of a big pool fills its height: rows of small cells are stretched, and what is
// drawn stays where the layout says it is.
#include <gtest/gtest.h>

#include "block_map_render.hpp"
#include "theme.hpp"

namespace kvscope::ui {
namespace {

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
