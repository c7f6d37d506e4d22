// Marks of a followed sequence on a map whose cells are too small to find it otherwise.
#include <QPainter>

#include <algorithm>

#include "plots/block_map_render.hpp"

namespace kvscope::ui {

// Each highlighted frame gets a square around its cell's centre. Two passes, rings then fills,
// so marks that touch merge into one ringed shape instead of covering each other's fill; the
// fills also cover the trace, which would otherwise cross every mark. A mark at the image's
// edge is moved inside it, not cut.
void drawFollowMarks(QImage& image, const frame_map& map, const BlockMapLayout& l,
                     const BlockMapColors& c, BlockColorMode mode, const SlotMask& highlight,
                     const QPolygon& trace) {
  if (highlight.empty() || !l.marksFollowed() || image.size() != l.size || l.cols <= 0) return;
  if (trace.size() > 1) {
    // Opaque, one pixel, no antialiasing: hundreds of hops across a big map stay plain line
    // drawing instead of one huge stroked shape.
    QPainter painter(&image);
    painter.setPen(QPen(QColor::fromRgb(c.traceLine), 0));
    painter.drawPolyline(trace);
  }
  const int side = std::min({l.markSide, l.size.width(), l.size.height()});
  const int ring = std::max(1, side / 7);
  const auto square = [&](int frame, int inset, std::uint32_t color) {
    const int unit = frame / l.framesPerPixel, row = unit / l.cols;
    const int cx = l.originX + (unit % l.cols) * l.cell + l.cell / 2;
    const int cy = l.rowTop(row) + l.rowHeight(row) / 2;
    const int x = std::clamp(cx - side / 2, 0, l.size.width() - side) + inset;
    const int y = std::clamp(cy - side / 2, 0, l.size.height() - side) + inset;
    for (int yy = y; yy < y + side - 2 * inset; ++yy) {
      std::fill_n(reinterpret_cast<std::uint32_t*>(image.scanLine(yy)) + x, side - 2 * inset, color);
    }
  };
  std::vector<int> marked;
  const int count = std::min({l.frameCount, static_cast<int>(map.frames.size()),
                              static_cast<int>(highlight.size())});
  for (int f = 0; f < count; ++f) {
    if (highlight[static_cast<std::size_t>(f)] != 0) marked.push_back(f);
  }
  for (const int f : marked) square(f, 0, c.followRing);
  for (const int f : marked) {
    const frame_info& fr = map.frames[static_cast<std::size_t>(f)];
    const auto bits = highlight[static_cast<std::size_t>(f)];
    int slot = 0;
    while (slot + 1 < fr.slot_count && !(bits & (1u << slot))) ++slot;
    square(f, ring, slotColor(fr.blocks[static_cast<std::size_t>(slot)], fr.tier, c, mode, false));
  }
}

}  // namespace kvscope::ui
