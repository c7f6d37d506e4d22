#pragma once
// The per-request table: one row per completed request (finished or rejected) with its times,
// latencies, tokens, preemptions and, for a rejection, why; sortable by any column (numbers
// sort as numbers). Shown for the live run so far, or read from a `--requests` CSV.
#include <QAbstractTableModel>
#include <QDialog>

#include <memory>
#include <vector>

#include "outcome/request_record.hpp"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace kvscope::ui {

using RequestsPtr = std::shared_ptr<const std::vector<request_record>>;

class RequestTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // The role whose values the table sorts by: numbers as doubles, text as text.
  static constexpr int sortRole = Qt::UserRole;

  explicit RequestTableModel(QObject* parent = nullptr);
  void setRecords(RequestsPtr records);  // null: no rows
  const RequestsPtr& records() const { return records_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  RequestsPtr records_;
};

class RequestTableDialog : public QDialog {
  Q_OBJECT
 public:
  explicit RequestTableDialog(QWidget* parent = nullptr);
  // Shows `records`; `source` says where they come from ("the live run at step 120").
  void setRecords(RequestsPtr records, const QString& source);
  // Reads a per-request CSV (core's parse_requests_csv); false with a message naming the file,
  // line and column, the table unchanged.
  bool loadCsv(const QString& path, QString* error);
  RequestTableModel* model() const { return model_; }
  QTableView* view() const { return view_; }
  QString sourceText() const;

 private:
  void openCsv();  // asks for a file, then loadCsv

  RequestTableModel* model_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* view_ = nullptr;
  QLabel* source_ = nullptr;
};

}  // namespace kvscope::ui
