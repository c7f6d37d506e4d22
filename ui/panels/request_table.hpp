#pragma once
// The per-request table: one row per completed request (finished or rejected) with its times,
// latencies, tokens, preemptions, for a rejection why, and for a request that missed the SLO
// the cause that cost it most time (core's miss_cause_of); sortable by any column (numbers sort
// as numbers) and filtered to the requests that met the SLO, missed it, or missed it for one
// cause. Shown for the live run so far, or read from a `--requests` CSV.
#include <QAbstractTableModel>
#include <QDialog>

#include <QSortFilterProxyModel>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "outcome/request_record.hpp"
#include "outcome/slo.hpp"
#include "outcome/slo_misses.hpp"

class QComboBox;
class QLabel;
class QTableView;

namespace kvscope::ui {

using RequestsPtr = std::shared_ptr<const std::vector<request_record>>;

class RequestTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // The role whose values the table sorts by: numbers as doubles, text as text.
  static constexpr int sortRole = Qt::UserRole;

  // The "missed because" column (the dominant cause's words, empty when it met the SLO), and the
  // first of the latency parts after it.
  static constexpr int missedColumn = 2;
  static constexpr int firstPartColumn = 13;

  explicit RequestTableModel(QObject* parent = nullptr);
  // null: no rows. Misses are judged against `slo` (none without one).
  void setRecords(RequestsPtr records, const slo_spec& slo = {});
  const RequestsPtr& records() const { return records_; }
  const slo_spec& slo() const { return slo_; }
  // Why the request in `row` missed the SLO; nullopt when it met it (or there is no SLO).
  std::optional<miss_cause> missCause(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  RequestsPtr records_;
  slo_spec slo_;
  std::vector<std::uint8_t> causes_;  // per row: a miss_cause, or miss_cause_count when it met the SLO
};

// Rows of one kind: all, those that met the SLO, those that missed it, or those it missed for
// one cause; sorted by RequestTableModel::sortRole.
class RequestFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  enum Shown { all = -3, met = -2, missed = -1 };  // or a miss_cause's index
  explicit RequestFilterModel(RequestTableModel* source, QObject* parent = nullptr);
  void setShown(int shown);
  int shown() const { return shown_; }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  RequestTableModel* source_;
  int shown_ = all;
};

class RequestTableDialog : public QDialog {
  Q_OBJECT
 public:
  explicit RequestTableDialog(QWidget* parent = nullptr);
  // The --slo text misses are judged against, for the records shown next (a CSV's too).
  void setSlo(const std::string& slo);
  // Shows `records`; `source` says where they come from ("the live run at step 120").
  void setRecords(RequestsPtr records, const QString& source);
  // Reads a per-request CSV (core's parse_requests_csv); false with a message naming the file,
  // line and column, the table unchanged.
  bool loadCsv(const QString& path, QString* error);
  RequestTableModel* model() const { return model_; }
  RequestFilterModel* filter() const { return sorted_; }
  QComboBox* filterBox() const { return filterBox_; }
  QTableView* view() const { return view_; }
  QString sourceText() const;

 private:
  void openCsv();  // asks for a file, then loadCsv
  void fillFilterBox();  // its choices with their counts, keeping the one chosen

  RequestTableModel* model_ = nullptr;
  RequestFilterModel* sorted_ = nullptr;
  QComboBox* filterBox_ = nullptr;
  std::string sloText_;
  QTableView* view_ = nullptr;
  QLabel* source_ = nullptr;
};

}  // namespace kvscope::ui
