#include "panels/block_table_panel.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

#include "common/live_label.hpp"

namespace kvscope::ui {
namespace {

constexpr int minimumRows = 12;

QString explainText(std::uint32_t blockSize) {
  return QObject::tr("A sequence sees its KV cache as consecutive <i>logical</i> blocks of %1 tokens. Its "
                     "<b>block table</b> maps each one to a <i>physical</i> slot anywhere in the pool, so "
                     "memory is allocated a block at a time and never needs to be contiguous — the idea "
                     "of PagedAttention.").arg(blockSize);
}

}  // namespace

void BlockTableModel::setRows(std::vector<block_location> rows, std::uint32_t blockSize,
                              std::uint32_t tokens) {
  const bool sameShape = rows.size() == rows_.size();
  blockSize_ = blockSize;
  tokens_ = tokens;
  if (sameShape) {  // the common live case: same blocks, maybe moved or re-quantized
    rows_ = std::move(rows);
    if (!rows_.empty()) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount_ - 1));
    return;
  }
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int BlockTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int BlockTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : columnCount_;
}

QVariant BlockTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || static_cast<std::size_t>(index.row()) >= rows_.size()) return {};
  const block_location& b = rows_[static_cast<std::size_t>(index.row())];
  const auto first = static_cast<std::uint32_t>(index.row()) * blockSize_;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case colLogical: return index.row();
      case colTokens: {
        const std::uint32_t last = std::min(tokens_, first + blockSize_);
        return last > first ? QStringLiteral("%1–%2").arg(first).arg(last - 1) : QStringLiteral("—");
      }
      case colFrame: return b.frame;
      case colSlot: return b.slot;
      case colTier: return levelName(b.tier);
      case colShared: return b.shared ? tr("shared") : QString();
      default: return {};
    }
  }
  if (role == Qt::DecorationRole && index.column() == colTier) return theme_->levelColor(b.tier);
  if (role == Qt::TextAlignmentRole) {
    return index.column() == colTier || index.column() == colShared
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole) {
    return tr("Logical block %1 (tokens %2–%3) is in frame %4, slot %5, stored as %6%7")
        .arg(index.row()).arg(first).arg(first + blockSize_ - 1).arg(b.frame).arg(b.slot)
        .arg(levelName(b.tier))
        .arg(b.shared ? tr(" — shared with other sequences (prefix cache hit)") : QString());
  }
  return {};
}

QVariant BlockTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {  // the headers are short: the dock is narrow
    switch (section) {
      case colLogical: return tr("Logical block: its place in the sequence");
      case colTokens: return tr("The tokens it holds");
      case colFrame: return tr("Physical frame in the pool");
      case colSlot: return tr("Slot in the frame: 0 for fp16, 0–1 for 8-bit, 0–3 for 4-bit blocks");
      case colTier: return tr("The precision it is stored at");
      case colShared: return tr("Shared with other sequences (a prefix cache hit)");
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case colLogical: return tr("block");
    case colTokens: return tr("tokens");
    case colFrame: return tr("frame");
    case colSlot: return tr("slot");
    case colTier: return tr("as");
    case colShared: return tr("shared");
    default: return {};
  }
}

BlockTablePanel::BlockTablePanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("blockTablePanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  header_ = new LiveLabel(Qt::RichText);  // follows the running sequence several times a second
  header_->setWordWrap(true);
  explain_ = new QLabel(explainText(16));
  explain_->setWordWrap(true);
  explain_->setTextFormat(Qt::RichText);
  model_ = new BlockTableModel(this);
  view_ = new QTableView;
  view_->setModel(model_);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->verticalHeader()->setVisible(false);
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 4);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // The last column takes what is left, and no more: a stretched last section is at least
  // the default section size (100 px), which made a narrow dock scroll sideways.
  view_->horizontalHeader()->setSectionResizeMode(BlockTableModel::colShared, QHeaderView::Stretch);
  view_->setAlternatingRowColors(true);
  // At least twelve rows in view: a sequence of a few hundred tokens is read at a glance.
  view_->setMinimumHeight(view_->horizontalHeader()->sizeHint().height() +
                          minimumRows * view_->verticalHeader()->defaultSectionSize() + 2 * view_->frameWidth());
  layout->addWidget(header_);
  layout->addWidget(view_, 1);
  layout->addWidget(explain_);
  connect(view_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const auto& rows = model_->rows();
    if (index.isValid() && static_cast<std::size_t>(index.row()) < rows.size()) {
      const block_location& b = rows[static_cast<std::size_t>(index.row())];
      Q_EMIT blockFocused(static_cast<int>(b.frame), b.slot);
    }
  });
  refresh();
}

void BlockTablePanel::setTheme(const Theme& theme) {
  theme_ = &theme;
  model_->setTheme(&theme);
  refresh();
}

void BlockTablePanel::setSnapshot(const SnapshotPtr& snapshot) {
  snapshot_ = snapshot;
  if (snapshot_) explain_->setText(explainText(snapshot_->pool->frames.block_size));  // no-op when equal
  if (sequence_ != no_sequence) refresh();
}

void BlockTablePanel::setRequestNames(QStringList names) {
  requestNames_ = std::move(names);
  refresh();
}

void BlockTablePanel::showSequence(sequence_id id) {
  if (id != no_sequence) lastShown_ = id;
  sequence_ = id;
  view_->clearSelection();
  refresh();
}

void BlockTablePanel::refresh() {
  const sequence_summary* seq = nullptr;
  if (snapshot_ && sequence_ != no_sequence) {
    for (const auto& s : snapshot_->pool->sequences) {
      if (s.id == sequence_) seq = &s;
    }
  }
  // The explanation is for an empty table; with a sequence shown its rows need the room, and
  // the explanation moves to the table's tooltip.
  explain_->setVisible(!seq);
  view_->setToolTip(seq ? explain_->text() : QString());
  if (!seq) {
    model_->setRows({}, 16, 0);
    header_->setText(lastShown_ != no_sequence && sequence_ == no_sequence && snapshot_
                         ? tr("<b>Block table</b><br>Sequence %1 is no longer running (finished "
                              "or preempted). Click a coloured block in the map to pick another.")
                               .arg(lastShown_)
                         : tr("<b>Block table</b><br>Click a coloured block in the block map to "
                              "see the block table of its sequence."));
    return;
  }
  std::set<std::uint32_t> frames;
  int sharedCount = 0;
  std::array<int, kv_level_count> perTier{};
  for (const block_location& b : seq->block_table) {
    frames.insert(b.frame);
    sharedCount += b.shared;
    ++perTier[static_cast<std::size_t>(ordinal(b.tier))];
  }
  const QColor c = theme_->sequenceColor(seq->id);
  QString tiers;
  for (precision p : all_precisions) {
    const int n = perTier[static_cast<std::size_t>(ordinal(p))];
    if (n > 0) tiers += QStringLiteral(" %1×%2").arg(n).arg(levelName(p));
  }
  const std::uint32_t decoded = seq->tokens > seq->prompt_tokens ? seq->tokens - seq->prompt_tokens : 0;
  header_->setText(
      tr("<b><span style='color:%1'>■</span> Sequence %2</b> (request %3, %4)<br>"
         "%5 prompt + %6/%7 output tokens → <b>%8 logical blocks</b> in <b>%9 frames</b>:%10%11")
          .arg(c.name()).arg(seq->id)
          .arg(requestNames_.value(static_cast<qsizetype>(seq->request_id), QString::number(seq->request_id)).toHtmlEscaped())
          .arg(seq->phase == sequence_phase::prefill ? tr("prefill") : tr("decoding"))
          .arg(seq->prompt_tokens).arg(decoded).arg(seq->output_tokens)
          .arg(seq->block_table.size()).arg(frames.size()).arg(tiers)
          .arg(sharedCount > 0 ? tr(", %1 shared with other sequences").arg(sharedCount) : QString()));
  model_->setRows(seq->block_table, snapshot_->pool->frames.block_size, seq->tokens);
}

}  // namespace kvscope::ui
