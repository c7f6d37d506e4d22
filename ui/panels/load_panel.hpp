#pragma once
// What the engine runs: the engine (EngineOptionsBox: model, budget, payload, paging), and the load —
// either a generated one (rate, burstiness, prompt/output length distributions, duration or
// count, shared-prefix groups, seed: spelled as the CLI's "gen:" spec, shown live) or a
// recorded trace ("Open trace…", or drop a file on the window). Nothing here runs anything:
// the window builds the new run off the GUI thread when asked, and the panel shows its
// progress and, if it fails, the reader's message.
#include <QWidget>

#include <array>

#include "io/session_file.hpp"
#include "util/expected.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace kvscope::ui {

class EngineOptionsBox;

class LoadPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LoadPanel(QWidget* parent = nullptr);

  // Shows the run that is live now (a trace selects the trace source).
  void showRun(const run_description& run);
  // The run the fields describe, built on `base` (which keeps the options the panel does not
  // show: policy, scheduler, block size...); the reason when a field is not valid. A non-empty
  // `trace` stands for the trace source and path (a dropped or chosen file).
  expected<run_description, QString> run(const run_description& base, const QString& trace = {}) const;
  // The generator fields as a canonical "gen:" spec (block size 16), or the reason they are not
  // a valid one.
  expected<std::string, QString> generatorSpec() const;
  bool traceSelected() const;
  QString tracePath() const;

  // Progress of the run being prepared; fraction < 0 hides the bar.
  void showProgress(double fraction, const QString& text);
  // The outcome of the last attempt: an error stays until the next attempt.
  void showMessage(const QString& text, bool error);
  QString message() const;
  void setSeed(std::uint64_t seed);  // shows it without emitting seedChanged
  std::uint64_t seed() const;

  // For tests.
  EngineOptionsBox* engineBox() const { return engine_; }
  QComboBox* modelBox() const;
  QLineEdit* budgetEdit() const;
  QComboBox* payloadBox() const;
  QDoubleSpinBox* rateBox() const { return rate_; }
  QPushButton* applyButton() const { return apply_; }

 Q_SIGNALS:
  void applyRequested();      // "Restart with these settings"
  void openTraceRequested();  // "Open trace…"
  void cancelRequested();
  void seedChanged(std::uint64_t seed);

 private:
  struct DistEditor {
    QComboBox* kind = nullptr;
    QDoubleSpinBox* a = nullptr;
    QDoubleSpinBox* b = nullptr;
  };
  QGroupBox* buildLoadBox();
  QWidget* buildGenerator();
  QWidget* buildTraceBox();
  QLayout* buildFooter();
  void wire();
  QWidget* makeDistEditor(DistEditor& d, const QString& what);
  void updateDistLabels(DistEditor& d);
  void updatePreview();
  void updateSourceEnabled();

  EngineOptionsBox* engine_ = nullptr;
  QRadioButton* generated_ = nullptr;
  QRadioButton* trace_ = nullptr;
  QWidget* generatorBox_ = nullptr;
  QWidget* traceBox_ = nullptr;
  QDoubleSpinBox* rate_ = nullptr;
  QDoubleSpinBox* burstiness_ = nullptr;
  DistEditor prompt_, output_;
  QDoubleSpinBox* duration_ = nullptr;
  QSpinBox* count_ = nullptr;
  QSpinBox* prefixGroups_ = nullptr;
  QSpinBox* prefixLen_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QLineEdit* spec_ = nullptr;
  QLineEdit* path_ = nullptr;
  QComboBox* format_ = nullptr;
  QCheckBox* skipBadRows_ = nullptr;
  QPushButton* open_ = nullptr;
  QPushButton* apply_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* message_ = nullptr;
};

}  // namespace kvscope::ui
