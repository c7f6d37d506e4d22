#pragma once
// The block table of the sequence selected in the block map: logical block → physical frame
// and slot, with its precision and whether it is shared. Clicking a row rings that block in
// the map.
#include <QAbstractTableModel>
#include <QStringList>
#include <QWidget>

#include "common/meta_types.hpp"
#include "common/theme.hpp"

class QLabel;
class QTableView;

namespace kvscope::ui {

class LiveLabel;

class BlockTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  enum Column { colLogical, colTokens, colFrame, colSlot, colTier, colShared, columnCount_ };
  void setRows(std::vector<block_location> rows, std::uint32_t blockSize, std::uint32_t tokens);
  const std::vector<block_location>& rows() const { return rows_; }
  void setTheme(const Theme* theme) { theme_ = theme; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<block_location> rows_;
  std::uint32_t blockSize_ = 16, tokens_ = 0;
  const Theme* theme_ = &lightTheme();
};

class BlockTablePanel : public QWidget {
  Q_OBJECT
 public:
  explicit BlockTablePanel(QWidget* parent = nullptr);
  void setTheme(const Theme& theme);
  const BlockTableModel& model() const { return *model_; }
  sequence_id sequence() const { return sequence_; }
  // Names to show for request ids (a tour's "A", "B", ...); the id where there is none.
  void setRequestNames(QStringList names);

 public Q_SLOTS:
  void setSnapshot(const kvscope::ui::SnapshotPtr& snapshot);
  void showSequence(kvscope::sequence_id id);

 Q_SIGNALS:
  void blockFocused(int frame, int slot);

 private:
  void refresh();
  LiveLabel* header_ = nullptr;
  QLabel* explain_ = nullptr;
  QTableView* view_ = nullptr;
  BlockTableModel* model_ = nullptr;
  SnapshotPtr snapshot_;
  sequence_id sequence_ = no_sequence;
  sequence_id lastShown_ = no_sequence;
  const Theme* theme_ = &lightTheme();
  QStringList requestNames_;
};

}  // namespace kvscope::ui
