#pragma once
// The kept runs (RunStore) as a table: name, load, model, GPU, config and headline metrics, the
// baseline starred. Pin one as the baseline, compare two (or one with the baseline), export
// one as a session file, open one again, remove one.
#include <QWidget>

class QPushButton;
class QTableWidget;

namespace kvscope::ui {

class RunStore;

class RunListPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunListPanel(RunStore* store, QWidget* parent = nullptr);
  QTableWidget* table() const { return table_; }
  // The selected runs' ids, in table order.
  QStringList selectedIds() const;
  void select(const QStringList& ids);

 public Q_SLOTS:
  void refresh();
  // Pins the selected run (else the newest) as the baseline, or unpins it when it already is.
  void pinBaseline();
  // Emits compareRequested for two selected runs, or the selected one against the baseline.
  void compareSelected();

 Q_SIGNALS:
  void compareRequested(const QString& referenceId, const QString& otherId);
  void openRequested(const QString& id);
  void exportRequested(const QString& id);

 private:
  void updateButtons();

  RunStore* store_;
  QTableWidget* table_ = nullptr;
  QPushButton* pin_ = nullptr;
  QPushButton* compare_ = nullptr;
  QPushButton* open_ = nullptr;
  QPushButton* export_ = nullptr;
  QPushButton* remove_ = nullptr;
};

}  // namespace kvscope::ui
