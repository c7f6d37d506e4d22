#pragma once
// Two whole runs side by side: the headline metrics of a reference run (the current config, or
// a run picked in the run list) and of another (the what-if, or a second run), and the change,
// coloured better or worse by the metric table's better_when (core's summary_compare), with its
// share of the reference; changes under 1 % are faded, and one line on top says what moved.
// Apply makes a what-if the current config; Discard drops it.
#include <QWidget>

#include <string_view>
#include <vector>

#include "common/theme.hpp"

class QLabel;
class QPushButton;
class QTableWidget;

namespace kvscope::ui {

class ComparePanel : public QWidget {
  Q_OBJECT
 public:
  enum Column { referenceColumn = 1, otherColumn = 2, deltaColumn = 3 };

  explicit ComparePanel(QWidget* parent = nullptr);
  void setTheme(const Theme& theme);
  // Shows the columns; an empty `values` leaves that column blank ("…" while it runs).
  void showComparison(const QString& referenceName, const std::vector<double>& reference,
                      const QString& otherName, const std::vector<double>& other);
  void setStatus(const QString& text);
  // Apply and Discard are offered while the other column is a what-if.
  void setWhatIfActions(bool shown, bool applicable);

  QTableWidget* table() const { return table_; }
  QPushButton* applyButton() const { return apply_; }
  // The row of a headline metric key (-1 for none).
  int rowOf(std::string_view key) const;
  // The exact number behind a cell (NaN when it is blank or unmeasured).
  double value(int row, Column column) const;
  QString columnName(Column column) const;
  // The one-line summary of the change ("" until both columns are filled).
  QString verdict() const;

 Q_SIGNALS:
  void applyRequested();
  void discardRequested();

 private:
  void fillColumn(Column column, const std::vector<double>& values);
  void fillDeltas(const std::vector<double>& reference, const std::vector<double>& other);

  QTableWidget* table_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* verdict_ = nullptr;
  QPushButton* apply_ = nullptr;
  QPushButton* discard_ = nullptr;
  const Theme* theme_ = &lightTheme();
};

}  // namespace kvscope::ui
