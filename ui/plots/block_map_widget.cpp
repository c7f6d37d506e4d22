#include "plots/block_map_widget.hpp"

#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>

namespace kvscope::ui {

BlockMapWidget::BlockMapWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::ClickFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setObjectName(QStringLiteral("blockMap"));
}

double BlockMapWidget::dpr() const { return devicePixelRatioF(); }

void BlockMapWidget::setTheme(const Theme& theme) {
  theme_ = &theme;
  colors_ = BlockMapColors::fromTheme(theme);
  dirty_ = true;
  update();
}

void BlockMapWidget::setSnapshot(const SnapshotPtr& snapshot) {
  // Snapshots between two pool views (a big pool) share the last one: nothing to redraw.
  const bool samePool = snapshot_ && snapshot && snapshot_->pool == snapshot->pool;
  snapshot_ = snapshot;
  if (samePool) return;
  if (selected_ != no_sequence || !marked_.empty()) rebuildHighlight();
  // When only frames changed, only their grid rows are drawn again and copied to the screen:
  // a paced run changes a few frames per refresh. A selection (its path crosses rows), a
  // resize or most rows changing redraw everything.
  if (!dirty_ && selected_ == no_sequence && marked_.empty() && renderedPool_ && snapshot_ &&
      static_cast<int>(snapshot_->pool->frames.frames.size()) == layout_.frameCount) {
    const std::vector<int> rows = changedGridRows(renderedPool_->frames, snapshot_->pool->frames, layout_);
    if (rows.size() * 2 < static_cast<std::size_t>(std::max(1, layout_.rows))) {
      for (const int r : rows) {
        if (std::find(dirtyRows_.begin(), dirtyRows_.end(), r) == dirtyRows_.end()) dirtyRows_.push_back(r);
        const QRectF band = QRectF(gridRowRect(layout_, r));
        update(QRectF(band.topLeft() / dpr(), band.size() / dpr()).toAlignedRect());
      }
      return;
    }
  }
  dirty_ = true;
  update();
}

void BlockMapWidget::setColorMode(BlockColorMode mode) {
  if (mode_ == mode) return;
  mode_ = mode;
  dirty_ = true;
  update();
}

void BlockMapWidget::selectSequence(sequence_id id) {
  if (id == selected_) return;
  selected_ = id;
  focusFrame_ = -1;
  rebuildHighlight();  // announces no_sequence itself when `id` is not running
  dirty_ = true;
  update();
  if (selected_ == id) Q_EMIT sequenceSelected(id);
}

void BlockMapWidget::setMaxCell(int pixels) {
  maxCell_ = std::max(1, pixels);
  layout_ = {};  // computed again at the next paint
  update();
}

void BlockMapWidget::setShowBlockIds(bool show) {
  showBlockIds_ = show;
  update();
}

void BlockMapWidget::setDimUnhighlighted(bool dim) {
  dimUnhighlighted_ = dim;
  dirty_ = true;
  update();
}

void BlockMapWidget::setOutlineFrames(bool outline) {
  outlineFrames_ = outline;
  update();
}

void BlockMapWidget::setMarkedBlocks(std::vector<block_id> blocks) {
  marked_ = std::move(blocks);
  rebuildHighlight();
  dirty_ = true;
  update();
}

void BlockMapWidget::focusBlock(int frame, int slot) {
  focusFrame_ = frame;
  focusSlot_ = slot;
  update();
}

void BlockMapWidget::rebuildHighlight() {
  highlight_.clear();
  if ((selected_ == no_sequence && marked_.empty()) || !snapshot_) return;
  const auto& frames = snapshot_->pool->frames.frames;
  highlight_.assign(frames.size(), 0);
  for (std::size_t f = 0; f < frames.size() && !marked_.empty(); ++f) {
    for (int s = 0; s < frames[f].slot_count; ++s) {
      const block_id b = frames[f].blocks[static_cast<std::size_t>(s)].block;
      if (b != no_block && std::find(marked_.begin(), marked_.end(), b) != marked_.end()) {
        highlight_[f] |= static_cast<std::uint8_t>(1u << s);
      }
    }
  }
  if (selected_ == no_sequence) return;
  const sequence_summary* seq = selectedSummary();
  if (!seq) {
    // The sequence finished or was preempted: its blocks are gone, so is the selection.
    selected_ = no_sequence;
    focusFrame_ = -1;
    if (marked_.empty()) highlight_.clear();
    Q_EMIT sequenceSelected(no_sequence);
    return;
  }
  for (const block_location& b : seq->block_table) {
    if (b.frame < highlight_.size()) highlight_[b.frame] |= static_cast<std::uint8_t>(1u << b.slot);
  }
}

void BlockMapWidget::ensureImage() {
  const QSize device(static_cast<int>(width() * dpr()), static_cast<int>(height() * dpr()));
  const int frames = snapshot_ ? static_cast<int>(snapshot_->pool->frames.frames.size()) : 0;
  if (layout_.size != device || layout_.frameCount != frames) {
    layout_ = BlockMapLayout::compute(device, frames, static_cast<int>(maxCell_ * dpr()));
    // A followed frame is marked at least 7 logical pixels wide: findable at any pool size.
    layout_.markSide = static_cast<int>(7 * dpr() + 0.5);
    dirty_ = true;
  }
  if (!dirty_ && dirtyRows_.empty()) return;
  QElapsedTimer timer;
  timer.start();
  static const frame_map empty;
  const frame_map& map = snapshot_ ? snapshot_->pool->frames : empty;
  static const SlotMask none;
  const SlotMask& dimmed = dimUnhighlighted_ ? highlight_ : none;
  if (dirty_ || !renderBlockMapRows(image_, map, layout_, colors_, mode_, dimmed, dirtyRows_)) {
    renderBlockMap(image_, map, layout_, colors_, mode_, dimmed, renderThreads_);
    // Undimmed (the tour), the selection is ringed in drawMarks instead.
    drawFollowMarks(image_, map, layout_, colors_, mode_, dimmed, traceInDevicePixels());
  }
  image_.setDevicePixelRatio(dpr());
  lastFillMs_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  dirty_ = false;
  dirtyRows_.clear();
  renderedPool_ = snapshot_ ? snapshot_->pool : nullptr;
}

void BlockMapWidget::paintEvent(QPaintEvent*) {
  ensureImage();
  QPainter p(this);
  p.drawImage(QPointF(0, 0), image_);
  if (!snapshot_) {
    p.setPen(theme_->mutedText);
    p.drawText(rect(), Qt::AlignCenter, tr("Waiting for the engine's first snapshot…"));
    return;
  }
  drawOverlay(p);
}

const sequence_summary* BlockMapWidget::selectedSummary() const {
  if (selected_ == no_sequence || !snapshot_) return nullptr;
  const auto& seqs = snapshot_->pool->sequences;
  const auto it = std::find_if(seqs.begin(), seqs.end(),
                               [&](const sequence_summary& s) { return s.id == selected_; });
  return it == seqs.end() ? nullptr : &*it;
}

QPolygon BlockMapWidget::traceInDevicePixels() const {
  QPolygon trace;
  const sequence_summary* seq = selectedSummary();
  if (!seq || !layout_.marksFollowed()) return trace;
  const auto& frames = snapshot_->pool->frames.frames;
  trace.reserve(static_cast<qsizetype>(seq->block_table.size()));
  for (const block_location& b : seq->block_table) {
    if (b.frame >= frames.size()) continue;
    trace.push_back(layout_.slotRect(static_cast<int>(b.frame), b.slot, frames[b.frame].slot_count).center());
  }
  return trace;
}

// The block table in logical order: a path hopping between scattered physical frames, block 0
// circled. Where cells are small the image already holds the path and a mark on every block
// (drawFollowMarks), drawn once per image instead of at every paint: only the circle is left.
void BlockMapWidget::drawTrace(QPainter& p) {
  const sequence_summary* seq = selectedSummary();
  if (!seq || seq->block_table.empty()) return;
  const QColor ink = theme_->text;
  const bool marked = layout_.marksFollowed();
  p.setRenderHint(QPainter::Antialiasing);
  if (!marked) {
    QPainterPath path;
    QVector<QPointF> centres;
    for (const block_location& b : seq->block_table) {
      const QPointF c = slotRect(static_cast<int>(b.frame), b.slot).center();
      if (centres.isEmpty()) path.moveTo(c); else path.lineTo(c);
      centres.push_back(c);
    }
    QColor line = ink;
    line.setAlpha(theme_->dark ? 120 : 95);
    p.setPen(QPen(line, 1.0));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    p.setBrush(ink);
    p.setPen(Qt::NoPen);
    for (const QPointF& c : centres) p.drawEllipse(c, 1.6, 1.6);
  }
  p.setPen(QPen(ink, 1.5));
  p.setBrush(Qt::NoBrush);
  const auto& first = seq->block_table.front();
  const double ring = marked ? 6.5 : 4.5;  // around a mark, not through it
  p.drawEllipse(slotRect(static_cast<int>(first.frame), first.slot).center(), ring, ring);
  drawLogicalIndices(p, seq->block_table);
  p.setRenderHint(QPainter::Antialiasing, false);
}

// Each block's logical index in its slot, where slots are big enough to read it.
void BlockMapWidget::drawLogicalIndices(QPainter& p, const std::vector<block_location>& table) {
  const QRectF first = slotRect(static_cast<int>(table.front().frame), table.front().slot);
  if (first.width() < 14 || first.height() < 12) return;
  QFont f = font();
  f.setPixelSize(std::clamp(static_cast<int>(first.height() * 0.45), 8, 12));
  f.setBold(true);
  p.setFont(f);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const QRectF r = slotRect(static_cast<int>(table[i].frame), table[i].slot);
    if (r.width() < 14 || r.height() < 12) continue;
    p.setPen(theme_->dark ? QColor(Qt::black) : QColor(Qt::white));
    p.drawText(r.adjusted(1, 1, 1, 1), Qt::AlignCenter, QString::number(i));
    p.setPen(theme_->dark ? QColor(Qt::white) : QColor(Qt::black));
    p.drawText(r, Qt::AlignCenter, QString::number(i));
  }
}

void BlockMapWidget::drawOverlay(QPainter& p) {
  drawTrace(p);
  drawMarks(p);
  const QColor ink = theme_->text;
  if (focusFrame_ >= 0) {
    p.setPen(QPen(theme_->accent, 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(slotRect(focusFrame_, focusSlot_).adjusted(-2, -2, 2, 2));
  }
  if (hoverFrame_ >= 0) {
    p.setPen(QPen(ink, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(frameRect(hoverFrame_).adjusted(-1, -1, 0, 0));
  }
}

// Frame outlines, block ids in their slots and rings around the marked blocks (a tour's).
void BlockMapWidget::drawMarks(QPainter& p) {
  if (!snapshot_ || (!showBlockIds_ && !outlineFrames_ && marked_.empty())) return;
  const auto& frames = snapshot_->pool->frames.frames;
  if (outlineFrames_ && layout_.detailed() && frameRect(0).width() >= 12) {
    // Centred on the body's edge: two neighbours' outlines fill the gap between them, a grey
    // line several times as wide as the one-pixel seam (background) inside a frame.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(theme_->mutedText, 2));
    for (std::size_t f = 0; f < frames.size(); ++f) p.drawRect(frameRect(static_cast<int>(f)));
  }
  QFont small = font();
  for (std::size_t f = 0; f < frames.size(); ++f) {
    for (int s = 0; s < frames[f].slot_count; ++s) {
      const block_slot& b = frames[f].blocks[static_cast<std::size_t>(s)];
      if (b.block == no_block || (b.refcount == 0 && !b.cached)) continue;
      const QRectF r = slotRect(static_cast<int>(f), s);
      // Undimmed, the selected sequence's blocks are told apart by their rings too.
      const bool inSelection = !dimUnhighlighted_ && f < highlight_.size() && (highlight_[f] & (1u << s));
      if (inSelection || std::find(marked_.begin(), marked_.end(), b.block) != marked_.end()) {
        // A dark ring inside a light one: visible on every level's colour.
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(theme_->text, 3));
        p.drawRect(r.adjusted(1.5, 1.5, -1.5, -1.5));
        p.setPen(QPen(theme_->base, 1.5));
        p.drawRect(r.adjusted(3.75, 3.75, -3.75, -3.75));
      }
      if (!showBlockIds_ || r.width() < 22 || r.height() < 16) continue;
      small.setPixelSize(std::clamp(static_cast<int>(r.height() * 0.22), 9, 15));
      p.setFont(small);
      p.setPen(theme_->dark ? QColor(Qt::white) : QColor(Qt::black));
      p.drawText(r.adjusted(4, 2, -2, -2), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("#%1").arg(b.block));
    }
  }
}

QRectF BlockMapWidget::frameRect(int frame) const {
  const QRect r = layout_.frameRect(frame);
  const double k = 1.0 / dpr();
  return QRectF(r.x() * k, r.y() * k, r.width() * k, r.height() * k);
}

QRectF BlockMapWidget::slotRect(int frame, int slot) const {
  if (!snapshot_ || frame < 0 || static_cast<std::size_t>(frame) >= snapshot_->pool->frames.frames.size()) {
    return {};
  }
  const int count = snapshot_->pool->frames.frames[static_cast<std::size_t>(frame)].slot_count;
  const QRect r = layout_.slotRect(frame, slot, count);
  const double k = 1.0 / dpr();
  return QRectF(r.x() * k, r.y() * k, r.width() * k, r.height() * k);
}

BlockMapWidget::Target BlockMapWidget::targetAt(QPoint pos) const {
  Target t;
  if (!snapshot_) return t;
  const auto hit = layout_.hitTest(QPoint(static_cast<int>(pos.x() * dpr()),
                                          static_cast<int>(pos.y() * dpr())));
  if (hit.firstFrame < 0 ||
      static_cast<std::size_t>(hit.lastFrame) >= snapshot_->pool->frames.frames.size()) {
    return t;
  }
  t.frame = hit.firstFrame;
  t.lastFrame = hit.lastFrame;
  const frame_info& f = snapshot_->pool->frames.frames[static_cast<std::size_t>(t.frame)];
  if (layout_.detailed()) {
    t.slot = layout_.slotAt(hit.localX, hit.localY, f.slot_count);
  } else {  // too small to aim at a slot: take the first used one
    t.slot = 0;
    for (int s = 0; s < f.slot_count; ++s) {
      if (f.blocks[static_cast<std::size_t>(s)].refcount > 0) { t.slot = s; break; }
    }
  }
  return t;
}

bool BlockMapWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = describeAt(help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      const Target t = targetAt(help->pos());
      QToolTip::showText(help->globalPos(), text, this, frameRect(t.frame).toAlignedRect());
    }
    return true;
  }
  return QWidget::event(e);
}

void BlockMapWidget::mouseMoveEvent(QMouseEvent* e) {
  const int frame = targetAt(e->position().toPoint()).frame;
  if (frame != hoverFrame_) {
    hoverFrame_ = frame;
    update();
  }
}

void BlockMapWidget::leaveEvent(QEvent*) {
  hoverFrame_ = -1;
  update();
}

void BlockMapWidget::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  const Target t = targetAt(e->position().toPoint());
  sequence_id owner = no_sequence;
  if (t.frame >= 0) {
    const auto& slot = snapshot_->pool->frames.frames[static_cast<std::size_t>(t.frame)]
                           .blocks[static_cast<std::size_t>(t.slot)];
    if (slot.refcount > 0) owner = slot.owner;
    if (slot.refcount > 0 && owner == no_sequence) {  // shared, its allocating sequence gone
      for (const sequence_summary& seq : snapshot_->pool->sequences) {
        for (const block_location& b : seq.block_table) {
          if (b.frame == static_cast<std::uint32_t>(t.frame) && b.slot == t.slot) owner = seq.id;
        }
        if (owner != no_sequence) break;
      }
    }
  }
  selectSequence(owner);
}

void BlockMapWidget::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape) {
    selectSequence(no_sequence);
    return;
  }
  QWidget::keyPressEvent(e);
}

void BlockMapWidget::resizeEvent(QResizeEvent*) { dirty_ = true; }

}  // namespace kvscope::ui
