// Where each frame of the block map sits: the grid, hit tests and frame/slot rectangles.
#include <algorithm>
#include <utility>

#include "plots/block_map_render.hpp"

namespace kvscope::ui {

BlockMapLayout BlockMapLayout::compute(QSize size, int frameCount, int maxCell) {
  BlockMapLayout l;
  l.size = size;
  l.frameCount = frameCount;
  const int w = size.width(), h = size.height();
  if (frameCount <= 0 || w <= 0 || h <= 0) return l;
  for (int c = std::max(1, maxCell); c >= 1; --c) {
    const int cols = w / c;
    if (cols == 0) continue;
    const int rows = (frameCount + cols - 1) / cols;
    if (static_cast<long long>(rows) * c <= h) {
      l.cell = c;
      l.cols = cols;
      l.rows = rows;
      break;
    }
  }
  if (l.cell == 0) {  // more frames than pixels: aggregate runs of frames per pixel
    l.cell = 1;
    const long long pixels = static_cast<long long>(w) * h;
    l.framesPerPixel = static_cast<int>((frameCount + pixels - 1) / pixels);
    l.cols = w;
    l.rows = (l.units() + w - 1) / w;
  }
  l.gap = l.cell >= 16 ? 2 : (l.cell >= 5 ? 1 : 0);
  // A short map (few frames) is narrower than the area: centre the grid in both directions.
  const int usedCols = std::min(l.cols, l.units());
  l.originX = std::max(0, (w - usedCols * l.cell + l.gap) / 2);
  // Small cells (a big pool) would leave up to three quarters of the height empty, above and
  // below a uniform texture (one more pixel per cell no longer fits): their rows share the
  // whole height instead, each a pixel or so taller than wide. Bigger cells stay square.
  if (l.gap == 0 && l.rows * l.cell < h) {
    l.rowSpan = h;
  } else {
    l.originY = std::max(0, (h - l.rows * l.cell + l.gap) / 2);
  }
  return l;
}

int BlockMapLayout::rowTop(int row) const {
  if (rowSpan == 0) return originY + row * cell;
  return originY + static_cast<int>(static_cast<long long>(row) * rowSpan / std::max(1, rows));
}

int BlockMapLayout::rowHeight(int row) const {
  return rowSpan == 0 ? cell : rowTop(row + 1) - rowTop(row);
}

BlockMapLayout::Hit BlockMapLayout::hitTest(QPoint p) const {
  Hit hit;
  if (cell <= 0) return hit;
  const int lx = p.x() - originX, ly = p.y() - originY;
  if (lx < 0 || ly < 0) return hit;
  int row = ly / cell;
  if (rowSpan > 0) {  // rows of uneven height: estimate, then step to the row holding y
    row = static_cast<int>(static_cast<long long>(ly) * rows / rowSpan);
    while (row > 0 && rowTop(row) > p.y()) --row;
    while (row + 1 < rows && rowTop(row + 1) <= p.y()) ++row;
  }
  const int col = lx / cell;
  if (col >= cols || row >= rows) return hit;
  const int unit = row * cols + col;
  if (unit >= units()) return hit;
  hit.firstFrame = unit * framesPerPixel;
  hit.lastFrame = std::min(frameCount, hit.firstFrame + framesPerPixel) - 1;
  hit.localX = lx % cell;
  // In the cell's own square coordinates, as if the row were not stretched.
  hit.localY = (p.y() - rowTop(row)) * cell / std::max(1, rowHeight(row));
  return hit;
}

QRect BlockMapLayout::frameRect(int frame) const {
  if (cell <= 0 || frame < 0 || frame >= frameCount) return {};
  const int unit = frame / framesPerPixel;
  const int side = body() > 0 ? body() : 1;
  const int row = unit / cols;
  return QRect(originX + (unit % cols) * cell, rowTop(row), side,
               rowSpan == 0 ? side : rowHeight(row));
}

QRect localSlotRect(int b, int slot, int slotCount) {
  if (slotCount <= 1 || b < 2) return QRect(0, 0, b, b);
  const int seam = b >= 7 ? 1 : 0;
  if (slotCount > 4) {  // columns: a frame of q3 blocks shows how many it holds
    const int left = slot * b / slotCount, right = (slot + 1) * b / slotCount;
    return QRect(left, 0, std::max(1, right - left - (slot + 1 < slotCount ? seam : 0)), b);
  }
  const int first = (b - seam) / 2;
  const auto span = [&](int half) {
    return half == 0 ? std::pair{0, first} : std::pair{first + seam, b - first - seam};
  };
  const auto [x, w] = span(slot % 2);
  if (slotCount == 2) return QRect(x, 0, w, b);
  const auto [y, h] = span(slot / 2);
  return QRect(x, y, w, h);
}

QRect BlockMapLayout::slotRect(int frame, int slot, int slotCount) const {
  const QRect f = frameRect(frame);
  if (!detailed() || f.isNull()) return f;
  QRect local = localSlotRect(body(), slot, slotCount);
  if (rowSpan > 0) {  // the lines a stretched row repeats each cell line on (see stretchRow)
    const int h = f.height(), c = body();
    const int top = (local.top() * h + c - 1) / c, bottom = ((local.bottom() + 1) * h + c - 1) / c;
    local = QRect(local.x(), top, local.width(), bottom - top);
  }
  return local.translated(f.topLeft());
}

int BlockMapLayout::slotAt(int localX, int localY, int slotCount) const {
  return localSlotAt(body(), localX, localY, slotCount);
}

int localSlotAt(int b, int x, int y, int slotCount) {
  if (slotCount <= 1) return 0;
  if (slotCount > 4) return std::clamp(x * slotCount / std::max(1, b), 0, slotCount - 1);
  const int half = std::max(1, b / 2);
  const int sx = x < half ? 0 : 1;
  if (slotCount == 2) return sx;
  return (y < half ? 0 : 2) + sx;
}

}  // namespace kvscope::ui
