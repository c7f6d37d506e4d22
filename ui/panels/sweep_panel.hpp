#pragma once
// The sweep view: a sweep CSV opened from a file (`kvscope-cli sweep` writes them) or run here
// over the current run with a grid typed as `--grid` takes it, as a scatter of any two metrics
// with the Pareto front highlighted (SweepScatter). Clicking a point asks for a what-if of that
// row's config over the current run. Parsing, planning, running and writing are core's
// (sweep_data, sweep_space, run_sweep_rows, sweep_file): the saved CSV is the CLI's bytes.
#include <QByteArray>
#include <QWidget>

#include <array>
#include <cstddef>
#include <utility>
#include <functional>
#include <memory>

#include "run/run_description.hpp"
#include "sweep/sweep_data.hpp"
#include "common/theme.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace kvscope::ui {

class SweepJob;
class SweepScatter;

class SweepPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SweepPanel(QWidget* parent = nullptr);

  // What a sweep runs over and a clicked config is applied to: the run now shown, as a whole run.
  void setBaseRun(std::function<run_description()> base) { base_ = std::move(base); }
  void setTheme(const Theme& theme);

  // Each returns false with a message naming the file (and line) on failure; the view keeps
  // what it showed.
  bool openFile(const QString& path, QString* error);
  // Starts a sweep of the grid edit's text over the base run; a bad grid is refused at once,
  // its message shown under the edit.
  bool startSweep(QString* error);
  // Writes the last sweep run here, atomically.
  bool saveCsv(const QString& path, QString* error) const;
  // Emits whatIfRequested with row `row`'s config over the base run (false when it cannot run).
  bool pickRow(std::size_t row, QString* error);

  std::shared_ptr<const sweep_data> sweep() const { return data_; }
  const QByteArray& sweepCsv() const { return csv_; }  // the last sweep run here, "" before one
  SweepScatter* scatter() const { return scatter_; }
  SweepJob* job() const { return job_; }
  QLineEdit* gridEdit() const { return grid_; }
  QSpinBox* jobsBox() const { return jobs_; }
  QComboBox* xBox() const { return xBox_; }
  QComboBox* yBox() const { return yBox_; }
  QProgressBar* progressBar() const { return progress_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* runButton() const { return run_; }
  QLabel* messageLabel() const { return message_; }

 Q_SIGNALS:
  // A what-if of `candidate` (the base run with a sweep row's config); `what` describes it.
  void whatIfRequested(const kvscope::run_description& candidate, const QString& what);
  // A sweep run here ended (error "" when it completed) or a file was opened.
  void sweepFinished(const QString& error);
  void opened(const QString& path);

 private:
  QWidget* buildRunBar();
  QWidget* buildAxisBar();
  std::array<QPushButton*, 2> buildFileButtons();  // Open…, Save…
  // Rows the scatter cannot draw: configs that did not run (every metric empty: refused as a
  // whole), and runs without a value of the chosen x or y (a metric that run does not measure).
  std::pair<std::size_t, std::size_t> unplottedRows() const;
  void showData(std::shared_ptr<const sweep_data> sweep, const QString& source);
  void redraw();
  void showMessage(const QString& text, bool error);
  void onProgress(int done, int total, double elapsedS, double etaS);
  void onFinished(const QByteArray& csv, const QString& error);
  void setRunning(bool running);

  std::function<run_description()> base_;
  std::shared_ptr<const sweep_data> data_;
  QString source_;   // where data_ came from, for the status line
  QByteArray csv_;
  SweepJob* job_ = nullptr;
  SweepScatter* scatter_ = nullptr;
  QLineEdit* grid_ = nullptr;
  QSpinBox* jobs_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* save_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* message_ = nullptr;
  QComboBox* xBox_ = nullptr;
  QComboBox* yBox_ = nullptr;
  QLabel* status_ = nullptr;
  const Theme* theme_ = &lightTheme();
};

}  // namespace kvscope::ui
