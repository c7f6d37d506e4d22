// The block map's hover text: what a frame (or a pixel of many frames) holds.
#include <array>

#include "plots/block_map_widget.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {
namespace {

QString slotLine(const block_slot& s, std::uint32_t blockSize) {
  if (s.refcount == 0 && !s.cached) return QObject::tr("free");
  QString owner = s.owner == no_sequence ? QObject::tr("no sequence")
                                         : QObject::tr("sequence %1").arg(s.owner);
  if (s.refcount == 0) owner = QObject::tr("cached prefix block (refcount 0, kept for reuse)");
  QString line = QObject::tr("%1, logical block %2, %3/%4 tokens, refcount %5")
                     .arg(owner)
                     .arg(s.logical_index)
                     .arg(s.fill)
                     .arg(blockSize)
                     .arg(s.refcount);
  if (s.refcount > 1) line += QObject::tr(" (shared prefix)");
  if (s.block != no_block) line += QObject::tr(", block #%1").arg(s.block);
  return line;
}

QString splitName(const frame_info& f) {
  switch (f.slot_count) {
    case 1: return QObject::tr("one fp16 block");
    case 2: return QObject::tr("two 8-bit blocks");
    case 4: return QObject::tr("four 4-bit blocks");
    default: return QObject::tr("%1 3-bit blocks").arg(f.slot_count);
  }
}

}  // namespace

QString BlockMapWidget::describeAt(QPoint pos) const {
  const Target t = targetAt(pos);
  if (t.frame < 0) return {};
  const auto& frames = snapshot_->pool->frames.frames;
  const std::uint32_t bs = snapshot_->pool->frames.block_size;
  if (t.lastFrame > t.frame) {
    int used = 0, freeCount = 0;
    std::array<int, kv_level_count> blocks{};
    for (int f = t.frame; f <= t.lastFrame; ++f) {
      const frame_info& fr = frames[static_cast<std::size_t>(f)];
      if (fr.is_free()) { ++freeCount; continue; }
      ++used;
      for (int s = 0; s < fr.slot_count; ++s) {
        if (fr.blocks[static_cast<std::size_t>(s)].refcount > 0) ++blocks[static_cast<std::size_t>(ordinal(fr.tier))];
      }
    }
    return tr("Frames %1–%2 (%3 frames share this pixel)\n%4 in use, %5 free\n"
              "blocks: fp16 %6, q8 %7, fp8 %8, q4 %9, q3 %10")
        .arg(t.frame).arg(t.lastFrame).arg(t.lastFrame - t.frame + 1).arg(used).arg(freeCount)
        .arg(blocks[0]).arg(blocks[1]).arg(blocks[2]).arg(blocks[3]).arg(blocks[4]);
  }
  const frame_info& f = frames[static_cast<std::size_t>(t.frame)];
  if (f.is_free() && f.slot_count == 1) {
    return tr("Frame %1: free (room for one fp16 block, two 8-bit, four 4-bit or five 3-bit blocks)").arg(t.frame);
  }
  QString text = tr("Frame %1 — %2, holds %3").arg(t.frame).arg(levelName(f.tier))
                     .arg(splitName(f));
  for (int s = 0; s < f.slot_count; ++s) {
    const QString line = slotLine(f.blocks[static_cast<std::size_t>(s)], bs);
    text += (s == t.slot && f.slot_count > 1 ? QStringLiteral("\n▸ slot %1: %2")
                                             : QStringLiteral("\n   slot %1: %2")).arg(s).arg(line);
  }
  return text;
}

}  // namespace kvscope::ui
