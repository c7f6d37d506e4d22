#pragma once
// The central view: every frame of the KV block pool, split into halves/quarters by tier.
// Hover shows a frame's blocks; clicking a block selects its sequence, highlights all its blocks
// and traces its block table in logical order — the teaching view of PagedAttention.
#include <QImage>
#include <QWidget>

#include "plots/block_map_render.hpp"
#include "common/meta_types.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {

class BlockMapWidget : public QWidget {
  Q_OBJECT
 public:
  explicit BlockMapWidget(QWidget* parent = nullptr);

  void setTheme(const Theme& theme);
  BlockColorMode colorMode() const { return mode_; }
  sequence_id selectedSequence() const { return selected_; }
  SnapshotPtr snapshot() const { return snapshot_; }

  // Geometry in widget (logical) coordinates, for overlays and tests.
  QRectF frameRect(int frame) const;
  QRectF slotRect(int frame, int slot) const;
  // Tooltip text for a point, empty when no frame is there.
  QString describeAt(QPoint pos) const;
  // Milliseconds the last image fill took (through scanLine), for the benchmark.
  double lastFillMs() const { return lastFillMs_; }
  const BlockMapLayout& layout() const { return layout_; }
  // Threads the image fill may use (1 = on the GUI thread only).
  void setRenderThreads(int threads) { renderThreads_ = threads; }
  // The largest side of a frame's cell in logical pixels (44 by default; a tour of a small pool
  // draws its frames bigger).
  void setMaxCell(int pixels);
  // Writes each block's id ("#12") in its slot where there is room (a tour talks about ids).
  void setShowBlockIds(bool show);
  // Blocks pointed at (a tour step's highlight): drawn undimmed and ringed, with the selected
  // sequence's; ids that are not in the pool are ignored.
  void setMarkedBlocks(std::vector<block_id> blocks);
  const std::vector<block_id>& markedBlocks() const { return marked_; }
  // Slides: blocks outside the highlight keep their colours (on by default, they are dimmed).
  // Dimmed and "room not yet written" are both pale, and a page has no hover to tell them apart:
  // the rings and the traced sequence show the highlight there.
  void setDimUnhighlighted(bool dim);
  bool dimsUnhighlighted() const { return dimUnhighlighted_; }
  // A tour's map: each frame outlined, so the frame's edge differs from the thin seams between
  // its halves and quarters and "two / four to a frame" can be seen.
  void setOutlineFrames(bool outline);
  bool outlinesFrames() const { return outlineFrames_; }

  QSize sizeHint() const override { return {820, 520}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 public Q_SLOTS:
  void setSnapshot(const kvscope::ui::SnapshotPtr& snapshot);
  void setColorMode(kvscope::ui::BlockColorMode mode);
  // no_sequence clears the selection. Emits sequenceSelected when it changes.
  void selectSequence(kvscope::sequence_id id);
  // Rings one block (from the block table panel); frame -1 clears.
  void focusBlock(int frame, int slot);

 Q_SIGNALS:
  void sequenceSelected(kvscope::sequence_id id);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Target {
    int frame = -1, lastFrame = -1, slot = -1;
  };
  Target targetAt(QPoint pos) const;
  void rebuildHighlight();
  void ensureImage();
  void drawOverlay(QPainter& painter);
  void drawTrace(QPainter& painter);
  void drawLogicalIndices(QPainter& painter, const std::vector<block_location>& table);
  // The selected sequence in the snapshot, null when none is (or it is gone).
  const sequence_summary* selectedSummary() const;
  // Its slot centres in logical order, for drawFollowMarks (empty where cells are not marked).
  QPolygon traceInDevicePixels() const;
  void drawMarks(QPainter& painter);
  double dpr() const;

  SnapshotPtr snapshot_;
  const Theme* theme_ = &lightTheme();
  BlockMapColors colors_ = BlockMapColors::fromTheme(lightTheme());
  BlockColorMode mode_ = BlockColorMode::byPrecision;
  BlockMapLayout layout_;
  QImage image_;
  bool dirty_ = true;  // image_ needs a full render
  // What image_ shows, and the grid rows that differ from the newest snapshot's pool (redrawn
  // alone at the next paint when nothing else changed).
  std::shared_ptr<const pool_view> renderedPool_;
  std::vector<int> dirtyRows_;
  SlotMask highlight_;
  sequence_id selected_ = no_sequence;
  std::vector<block_id> marked_;
  int maxCell_ = 44;
  bool showBlockIds_ = false;
  bool dimUnhighlighted_ = true;
  bool outlineFrames_ = false;
  int hoverFrame_ = -1;
  int focusFrame_ = -1, focusSlot_ = 0;
  double lastFillMs_ = 0;
  int renderThreads_ = 2;
};

}  // namespace kvscope::ui

Q_DECLARE_METATYPE(kvscope::ui::BlockColorMode)
