#include "plots/block_map_render.hpp"

#include <algorithm>
#include <functional>

#include <tbb/task_arena.h>

#include "common/theme.hpp"
#include "util/parallel.hpp"

namespace kvscope::ui {
namespace {

std::uint32_t rgb(const QColor& c) { return c.rgb(); }  // 0xffRRGGBB

struct SlotPaint {
  std::uint32_t full = 0, unfilled = 0;
  bool occupied = false;
};

SlotPaint paintFor(const block_slot& s, precision tier, const BlockMapColors& c,
                   BlockColorMode mode, bool dim) {
  if (s.refcount == 0) {
    if (s.cached) return {dim ? c.cachedDim : c.cached, dim ? c.cachedDim : c.cached, false};
    return {c.freeFrame, c.freeFrame, false};
  }
  const auto t = static_cast<std::size_t>(ordinal(tier));
  if (mode == BlockColorMode::byPrecision) {
    return dim ? SlotPaint{c.levelDim[t], c.freeFrame, true}
               : SlotPaint{c.level[t], c.levelUnfilled[t], true};
  }
  const auto k = static_cast<std::size_t>(s.owner < 0 ? 0 : s.owner % sequencePaletteSize);
  return dim ? SlotPaint{c.sequenceDim[k], c.freeFrame, true}
             : SlotPaint{c.sequence[k], c.sequenceUnfilled[k], true};
}

int stateIndex(const block_slot& s) { return (s.refcount != 0) * 2 + (s.cached ? 1 : 0); }

// The solid colour of a slot (what a one-pixel frame averages).
std::uint32_t solidColor(const block_slot& s, precision tier, const BlockMapColors& c,
                         BlockColorMode mode, bool dim) {
  const int i = ordinal(tier) * 4 + stateIndex(s);
  if (mode == BlockColorMode::bySequence && s.refcount != 0) {
    const auto k = static_cast<std::size_t>(s.owner < 0 ? 0 : s.owner % sequencePaletteSize);
    return dim ? c.sequenceDim[k] : c.sequence[k];
  }
  return (dim ? c.byTierStateDim : c.byTierState)[static_cast<std::size_t>(i)];
}

// Channel-wise average of n (1, 2, 4 or 5) pixels without unpacking to floats.
std::uint32_t average(const std::uint32_t* px, int n) {
  if (n == 1) return px[0];
  std::uint32_t rb = 0, g = 0;
  for (int i = 0; i < n; ++i) {
    rb += px[i] & 0xff00ffu;
    g += px[i] & 0x00ff00u;
  }
  if (n == 2 || n == 4) {  // a shift for the common splits
    const int shift = n == 2 ? 1 : 2;
    return 0xff000000u | ((rb >> shift) & 0xff00ffu) | ((g >> shift) & 0x00ff00u);
  }
  const auto k = static_cast<std::uint32_t>(n);  // q3's five: sums of 8-bit channels fit their lanes
  return 0xff000000u | ((rb >> 16) / k) << 16 | (rb & 0xffffu) / k | ((g >> 8) / k) << 8;
}

}  // namespace

BlockMapColors BlockMapColors::fromTheme(const Theme& t) {
  BlockMapColors c;
  const double dimAmount = 0.68, unfilledAmount = 0.62;
  for (std::size_t i = 0; i < kv_level_count; ++i) {
    c.level[i] = rgb(t.level[i]);
    c.levelUnfilled[i] = rgb(mix(t.level[i], t.freeFrame, unfilledAmount));
    c.levelDim[i] = rgb(mix(t.level[i], t.freeFrame, dimAmount));
  }
  for (std::size_t i = 0; i < c.sequence.size(); ++i) {
    const QColor s = t.sequenceColor(static_cast<sequence_id>(i));
    c.sequence[i] = rgb(s);
    c.sequenceUnfilled[i] = rgb(mix(s, t.freeFrame, unfilledAmount));
    c.sequenceDim[i] = rgb(mix(s, t.freeFrame, dimAmount));
  }
  c.freeFrame = rgb(t.freeFrame);
  c.cached = rgb(t.cachedBlock);
  c.cachedDim = rgb(mix(t.cachedBlock, t.freeFrame, dimAmount));
  c.background = rgb(t.mapBackground);
  c.sharedMark = t.dark ? 0xff101010u : 0xffffffffu;
  c.followRing = rgb(t.text);
  c.traceLine = rgb(mix(t.text, t.base, 0.45));
  for (std::size_t tier = 0; tier < kv_level_count; ++tier) {
    c.byTierState[tier * 4 + 0] = c.byTierStateDim[tier * 4 + 0] = c.freeFrame;
    c.byTierState[tier * 4 + 1] = c.cached;
    c.byTierStateDim[tier * 4 + 1] = c.cachedDim;
    c.byTierState[tier * 4 + 2] = c.byTierState[tier * 4 + 3] = c.level[tier];
    c.byTierStateDim[tier * 4 + 2] = c.byTierStateDim[tier * 4 + 3] = c.levelDim[tier];
  }
  return c;
}

std::uint32_t slotColor(const block_slot& s, precision tier, const BlockMapColors& c,
                        BlockColorMode mode, bool dim) {
  return solidColor(s, tier, c, mode, dim);
}

std::uint32_t frameMeanColor(const frame_info& f, const BlockMapColors& c, BlockColorMode mode,
                             std::uint8_t bits, bool highlighting) {
  if (f.slot_count <= 1) {  // the common case: one fp16 block or a free frame
    return solidColor(f.blocks[0], f.tier, c, mode, highlighting && !(bits & 1u));
  }
  std::uint32_t px[max_slots_per_frame];
  const int n = f.slot_count;
  for (int s = 0; s < n; ++s) {
    const bool dim = highlighting && !(bits & (1u << s));
    px[s] = solidColor(f.blocks[static_cast<std::size_t>(s)], f.tier, c, mode, dim);
  }
  return average(px, n);
}

namespace {

using RowPointers = std::vector<std::uint32_t*>;

// A stretched grid row repeats its `cell` drawn lines over its height: line y shows drawn line
// y * cell / height (what BlockMapLayout::slotRect assumes). Bottom up, so every line is read
// before it is overwritten.
void stretchRow(const RowPointers& rows, const BlockMapLayout& l, int r) {
  const int height = l.rowHeight(r);
  if (height <= l.cell) return;
  const int top = l.rowTop(r), width = l.cols * l.cell;
  for (int y = height - 1; y > 0; --y) {
    const int drawn = y * l.cell / height;  // <= y: that line is not overwritten yet
    std::copy_n(rows[static_cast<std::size_t>(top + drawn)] + l.originX, width,
                rows[static_cast<std::size_t>(top + y)] + l.originX);
  }
}

// Both renders: every grid row when `only` is null, else just those (each band cleared first).
void render(QImage& image, const frame_map& map, const BlockMapLayout& l, const BlockMapColors& c,
            BlockColorMode mode, const SlotMask& highlight, int maxThreads,
            const std::vector<int>* only) {
  if (!only) image.fill(c.background);
  const int n = std::min<int>(l.frameCount, static_cast<int>(map.frames.size()));
  if (n <= 0 || l.cell <= 0) return;
  // Row pointers through scanLine() once, up front: no per-pixel detach checks, and the
  // parallel loop below only writes through them (each grid row owns its own scanlines).
  std::vector<std::uint32_t*> rows(static_cast<std::size_t>(image.height()));
  for (int y = 0; y < image.height(); ++y) {
    rows[static_cast<std::size_t>(y)] = reinterpret_cast<std::uint32_t*>(image.scanLine(y));
  }
  const bool highlighting = !highlight.empty();
  const auto bitsOf = [&](int f) -> std::uint8_t {
    return highlighting && static_cast<std::size_t>(f) < highlight.size()
               ? highlight[static_cast<std::size_t>(f)] : std::uint8_t{0};
  };
  const frame_info* frames = map.frames.data();
  const int gridRows = std::min(l.rows, (l.units() + l.cols - 1) / l.cols);

  // One grid row: `cell` scanlines, `cols` cells. Frames are visited in order, no divisions.
  std::function<void(int)> drawRow;
  if (l.framesPerPixel > 1) {  // aggregate: each pixel is the mean of its frames' colours
    drawRow = [&](int r) {
      std::uint32_t* row = rows[static_cast<std::size_t>(l.rowTop(r))] + l.originX;
      for (int col = 0; col < l.cols; ++col) {
        const int first = (r * l.cols + col) * l.framesPerPixel;
        if (first >= n) break;
        const int last = std::min(n, first + l.framesPerPixel);
        std::uint32_t red = 0, green = 0, blue = 0;
        for (int f = first; f < last; ++f) {
          const std::uint32_t px = frameMeanColor(frames[f], c, mode, bitsOf(f), highlighting);
          red += (px >> 16) & 0xffu;
          green += (px >> 8) & 0xffu;
          blue += px & 0xffu;
        }
        const auto k = static_cast<std::uint32_t>(last - first);
        row[col] = 0xff000000u | (red / k) << 16 | (green / k) << 8 | (blue / k);
      }
    };
  } else if (!l.detailed()) {  // one pixel per frame: its slots averaged
    drawRow = [&](int r) {
      std::uint32_t* row = rows[static_cast<std::size_t>(l.rowTop(r))] + l.originX;
      const int first = r * l.cols, last = std::min(n, first + l.cols);
      for (int f = first; f < last; ++f) row[f - first] = frameMeanColor(frames[f], c, mode, bitsOf(f), highlighting);
    };
  } else if (l.body() <= 4) {  // small cells: halves/quarters as single pixels, no seams or fill
    drawRow = [&](int r) {
      const int b = l.body();
      const int first = r * l.cols, last = std::min(n, first + l.cols);
      for (int y = 0; y < b; ++y) {
        std::uint32_t* row = rows[static_cast<std::size_t>(l.rowTop(r) + y)] + l.originX;
        for (int f = first; f < last; ++f) {
          const frame_info& fr = frames[f];
          const int count = fr.slot_count;
          const std::uint8_t bits = bitsOf(f);
          std::uint32_t* px = row + (f - first) * l.cell;
          for (int x = 0; x < b; ++x) {
            const int slot = count == 1 ? 0 : localSlotAt(b, x, y, count);
            px[x] = solidColor(fr.blocks[static_cast<std::size_t>(slot)], fr.tier, c, mode,
                               highlighting && !(bits & (1u << slot)));
          }
        }
      }
    };
  } else {
    // Detailed: every slot in its half/quarter, the unwritten part of a block lighter (top),
    // a dot on blocks shared by several sequences.
    drawRow = [&](int r) {
      const int b = l.body();
      std::array<std::array<QRect, max_slots_per_frame>, max_slots_per_frame + 1> slotRects{};
      for (int count : {1, 2, 4, 5}) {
        for (int s = 0; s < count; ++s) slotRects[static_cast<std::size_t>(count)][static_cast<std::size_t>(s)] = localSlotRect(b, s, count);
      }
      const double blockSize = std::max<std::uint32_t>(1, map.block_size);
      const int y0 = l.rowTop(r);
      const auto fill = [&](int x, int y, int w, int h, std::uint32_t color) {
        for (int yy = y; yy < y + h; ++yy) {
          std::uint32_t* row = rows[static_cast<std::size_t>(y0 + yy)] + x;
          std::fill(row, row + w, color);
        }
      };
      const int first = r * l.cols, last = std::min(n, first + l.cols);
      for (int f = first; f < last; ++f) {
        const frame_info& fr = frames[f];
        const int count = fr.slot_count;
        const int x0 = l.originX + (f - first) * l.cell;
        const std::uint8_t bits = bitsOf(f);
        for (int s = 0; s < count; ++s) {
          const block_slot& slot = fr.blocks[static_cast<std::size_t>(s)];
          const SlotPaint p = paintFor(slot, fr.tier, c, mode, highlighting && !(bits & (1u << s)));
          const QRect& q = slotRects[static_cast<std::size_t>(count)][static_cast<std::size_t>(s)];
          int filledRows = q.height();
          if (p.occupied && slot.fill < blockSize) {
            filledRows = static_cast<int>(slot.fill / blockSize * q.height() + 0.5);
            if (slot.fill > 0) filledRows = std::max(1, filledRows);
          }
          const int split = q.height() - filledRows;
          if (split > 0) fill(x0 + q.x(), q.y(), q.width(), split, p.unfilled);
          fill(x0 + q.x(), q.y() + split, q.width(), filledRows, p.full);
          if (slot.refcount > 1 && q.width() >= 5 && q.height() >= 5) {
            const int d = std::min(q.width(), q.height()) >= 9 ? 3 : 1;
            fill(x0 + q.x() + (q.width() - d) / 2, q.y() + (q.height() - d) / 2, d, d, c.sharedMark);
          }
        }
      }
    };
  }

  const auto drawGridRow = [&](int r) {
    drawRow(r);
    stretchRow(rows, l, r);
  };
  if (only) {
    for (const int r : *only) {
      const QRect band = gridRowRect(l, r) & image.rect();
      for (int y = band.top(); y <= band.bottom(); ++y) {
        std::uint32_t* row = rows[static_cast<std::size_t>(y)];
        std::fill(row + band.left(), row + band.right() + 1, c.background);
      }
      if (r >= 0 && r < gridRows) drawGridRow(r);
    }
    return;
  }
  // Big maps are split over threads by grid rows; small ones are not worth the hand-off.
  if (maxThreads > 1 && static_cast<long long>(n) >= 32768) {
    static tbb::task_arena arena(std::min(2, tbb::this_task_arena::max_concurrency()));
    arena.execute([&] {
      parallel_chunks(0, gridRows, 8, [&](int begin, int end) {
        for (int r = begin; r < end; ++r) drawGridRow(r);
      });
    });
  } else {
    for (int r = 0; r < gridRows; ++r) drawGridRow(r);
  }
}

}  // namespace

void renderBlockMap(QImage& image, const frame_map& map, const BlockMapLayout& l,
                    const BlockMapColors& c, BlockColorMode mode, const SlotMask& highlight,
                    int maxThreads) {
  if (image.size() != l.size || image.format() != QImage::Format_RGB32) {
    image = QImage(l.size, QImage::Format_RGB32);
  }
  if (image.isNull()) return;
  render(image, map, l, c, mode, highlight, maxThreads, nullptr);
}

bool renderBlockMapRows(QImage& image, const frame_map& map, const BlockMapLayout& l,
                        const BlockMapColors& c, BlockColorMode mode, const SlotMask& highlight,
                        const std::vector<int>& rows) {
  if (image.isNull() || image.size() != l.size || image.format() != QImage::Format_RGB32) return false;
  render(image, map, l, c, mode, highlight, 1, &rows);
  return true;
}

std::vector<int> changedGridRows(const frame_map& before, const frame_map& after,
                                 const BlockMapLayout& l) {
  std::vector<int> rows;
  const int perRow = std::max(1, l.cols) * l.framesPerPixel;
  if (before.frames.size() != after.frames.size() || before.block_size != after.block_size) {
    for (int r = 0; r < l.rows; ++r) rows.push_back(r);
    return rows;
  }
  const auto n = static_cast<int>(after.frames.size());
  for (int r = 0, first = 0; first < n; ++r, first += perRow) {
    const int last = std::min(n, first + perRow);
    if (!std::equal(after.frames.begin() + first, after.frames.begin() + last,
                    before.frames.begin() + first)) {
      rows.push_back(r);
    }
  }
  return rows;
}

QRect gridRowRect(const BlockMapLayout& l, int row) {
  return QRect(l.originX, l.rowTop(row), l.cols * l.cell, l.rowHeight(row));
}

}  // namespace kvscope::ui
