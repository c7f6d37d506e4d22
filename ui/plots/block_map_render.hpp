#pragma once
// Drawing a frame_map into a QImage, kept apart from the widget so it can be benchmarked and
// tested on its own. All geometry is in device pixels.
#include <QImage>
#include <QPolygon>
#include <QRect>
#include <QSize>

#include <array>
#include <cstdint>
#include <vector>

#include "memory/frame_map.hpp"

namespace kvscope::ui {

struct Theme;

enum class BlockColorMode { byPrecision, bySequence };

// Where each frame sits. Frames are laid out row-major in square cells; when there are more
// frames than pixels, each pixel aggregates `framesPerPixel` consecutive frames instead. Rows of
// small cells are stretched to fill the height (rowSpan), so a big pool leaves no empty bands.
struct BlockMapLayout {
  int frameCount = 0;
  int cell = 0;            // cell side in pixels (1 when aggregated)
  int gap = 0;             // empty pixels between neighbouring cells
  int framesPerPixel = 1;  // > 1 only when frames outnumber pixels
  int cols = 0, rows = 0;  // grid size in cells
  int originX = 0, originY = 0;
  int rowSpan = 0;  // > 0: the rows share this many pixels, each `cell` or a few more tall
  // Frames of a followed sequence are marked with squares at least this big (device pixels)
  // where cells are smaller; the widget sets it from its device pixel ratio.
  int markSide = 7;
  QSize size;  // of the image

  // The largest cells (up to maxCell) that fit every frame into `size`.
  static BlockMapLayout compute(QSize size, int frameCount, int maxCell = 40);

  int body() const { return cell - gap; }
  // True when a cell is big enough to show its halves/quarters separately.
  bool detailed() const { return framesPerPixel == 1 && body() >= 2; }
  int units() const { return (frameCount + framesPerPixel - 1) / framesPerPixel; }
  int rowTop(int row) const;     // first pixel line of a grid row
  int rowHeight(int row) const;  // `cell`, or more in a stretched row
  // True when followed frames get marks: their cells are too small to find on their own.
  bool marksFollowed() const { return cell > 0 && cell < markSide; }

  struct Hit {
    int firstFrame = -1;  // -1: no frame under the point
    int lastFrame = -1;   // inclusive; > firstFrame only when aggregated
    int localX = 0, localY = 0;  // position inside the cell
  };
  Hit hitTest(QPoint device) const;
  // The cell of a frame (gap trimmed off; taller than wide in a stretched row).
  QRect frameRect(int frame) const;
  // One slot of a frame split in `slotCount` slots; the whole body when not detailed.
  QRect slotRect(int frame, int slot, int slotCount) const;
  // Which slot of a `slotCount`-way frame a point inside the cell falls in.
  int slotAt(int localX, int localY, int slotCount) const;
};

// A slot's rectangle inside a square cell body of side `body`: halves side by side, quarters
// 2×2, q3's fifths as five columns, with a one-pixel seam between them once there is room for it.
QRect localSlotRect(int body, int slot, int slotCount);
// The slot of the pixel (x, y) of such a body, as localSlotRect splits it (seams go to a side).
int localSlotAt(int body, int x, int y, int slotCount);

// The colours as raw pixels, precomputed from a Theme once per theme change.
struct BlockMapColors {
  std::array<std::uint32_t, kv_level_count> level{}, levelUnfilled{}, levelDim{};
  std::array<std::uint32_t, 64> sequence{}, sequenceUnfilled{}, sequenceDim{};
  std::uint32_t freeFrame = 0, cached = 0, cachedDim = 0, background = 0, sharedMark = 0;
  std::uint32_t followRing = 0;  // the outline of a followed frame's mark
  std::uint32_t traceLine = 0;   // the followed sequence's path where its frames are marked
  // Solid colour by [tier * 4 + state], state = (refcount != 0) * 2 + cached: free, cached,
  // used, used — a lookup instead of branches on the hot path of big maps. Dimmed variant too.
  std::array<std::uint32_t, kv_level_count * 4> byTierState{}, byTierStateDim{};

  static BlockMapColors fromTheme(const Theme& theme);
};

// Per frame, bit s set when slot s belongs to the highlighted sequence; empty = no highlight.
using SlotMask = std::vector<std::uint8_t>;

// Fills `image` (resized to layout.size if needed, Format_RGB32) through scanLine(). Maps of
// 32k frames and more are split over up to 2 threads unless `maxThreads` is 1.
void renderBlockMap(QImage& image, const frame_map& map, const BlockMapLayout& layout,
                    const BlockMapColors& colors, BlockColorMode mode, const SlotMask& highlight,
                    int maxThreads = 2);

// Redraws only grid rows `rows` of an image renderBlockMap filled for the same layout, colours
// and mode: afterwards the image equals a full render of `map`. False (nothing drawn) when the
// image does not have the layout's size. (Marks reach across rows: they go over full renders.)
bool renderBlockMapRows(QImage& image, const frame_map& map, const BlockMapLayout& layout,
                        const BlockMapColors& colors, BlockColorMode mode,
                        const SlotMask& highlight, const std::vector<int>& rows);

// Over a full render, on a layout that marksFollowed() (nothing otherwise): `trace`, the followed
// sequence's slot centres in logical order, as a thin line, then a mark on every highlighted
// frame — a square of markSide pixels ringed in followRing, filled with its highlighted block's
// undimmed colour — so the sequence can be found among hundreds of thousands of frames.
void drawFollowMarks(QImage& image, const frame_map& map, const BlockMapLayout& layout,
                     const BlockMapColors& colors, BlockColorMode mode, const SlotMask& highlight,
                     const QPolygon& trace = {});

// The grid rows whose frames differ between two maps of the same size (all of them otherwise).
std::vector<int> changedGridRows(const frame_map& before, const frame_map& after,
                                 const BlockMapLayout& layout);

// A grid row's band in device pixels (what renderBlockMapRows redraws of it).
QRect gridRowRect(const BlockMapLayout& layout, int row);

// The solid colour of one slot, dimmed or not (what a mark is filled with, undimmed).
std::uint32_t slotColor(const block_slot& slot, precision tier, const BlockMapColors& colors,
                        BlockColorMode mode, bool dim);

// The colour a whole frame gets when drawn as one pixel (slots averaged) — also what a test
// expects at a small map.
std::uint32_t frameMeanColor(const frame_info& frame, const BlockMapColors& colors,
                             BlockColorMode mode, std::uint8_t highlightBits, bool highlighting);

}  // namespace kvscope::ui
