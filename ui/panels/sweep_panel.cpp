#include "panels/sweep_panel.hpp"

#include <QAbstractItemView>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <thread>

#include "run/metric_table.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/sweep_space.hpp"
#include "jobs/sweep_job.hpp"
#include "plots/sweep_scatter.hpp"
#include "util/atomic_write.hpp"

namespace kvscope::ui {
namespace {

// "1:02" or "4 s".
QString duration(double s) {
  const auto total = static_cast<long long>(s + 0.5);
  return total >= 60 ? QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'))
                     : QObject::tr("%1 s").arg(total);
}

void selectKey(QComboBox* box, const QString& key) {
  const int i = box->findText(key);
  if (i >= 0) box->setCurrentIndex(i);
}

}  // namespace

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("sweepPanel"));
  job_ = new SweepJob(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(2);
  layout->addWidget(buildRunBar());
  auto* progressRow = new QHBoxLayout;
  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("sweepProgress"));
  progress_->setVisible(false);
  message_ = new QLabel;
  message_->setObjectName(QStringLiteral("sweepMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setVisible(false);
  progressRow->addWidget(progress_, 1);
  progressRow->addWidget(message_, 3);
  layout->addLayout(progressRow);
  layout->addWidget(buildAxisBar());
  scatter_ = new SweepScatter;
  layout->addWidget(scatter_, 1);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("sweepStatus"));
  status_->setTextFormat(Qt::RichText);
  status_->setWordWrap(true);
  status_->setToolTip(tr("Hover a point for its config and values; click it to run that config over the current "
                         "run as the what-if (see Compare). A config refused as a whole (a q4 threshold below its "
                         "q8 threshold, a budget too small for the model) has an empty row and no point; so has a "
                         "run without a value of x or y (the measured errors of an accounting-payload run, say)."));
  // Open and Save beside the status, so the axis boxes have the panel's width for whole metric names.
  auto* statusRow = new QHBoxLayout;
  statusRow->addWidget(status_, 1);
  for (QPushButton* button : buildFileButtons()) statusRow->addWidget(button, 0, Qt::AlignBottom);
  layout->addLayout(statusRow);
  connect(scatter_, &SweepScatter::rowClicked, this, [this](std::size_t row) {
    QString error;
    if (!pickRow(row, &error)) showMessage(error, true);
  });
  connect(job_, &SweepJob::progress, this, &SweepPanel::onProgress);
  connect(job_, &SweepJob::finished, this, &SweepPanel::onFinished);
  redraw();
}

QWidget* SweepPanel::buildRunBar() {
  auto* bar = new QWidget;
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  grid_ = new QLineEdit;
  grid_->setObjectName(QStringLiteral("sweepGrid"));
  grid_->setPlaceholderText(tr("grid, e.g. q8_threshold=0.5:0.9:0.1 ewma_alpha=0.1,0.3"));
  grid_->setToolTip(tr("Axes as kvscope-cli sweep --grid takes them: NAME=V1,V2 or NAME=FIRST:LAST:STEP, "
                       "separated by blanks; any option by flag or key, preset, rate_scale. Runs over the "
                       "current run's load, model, budget and policy."));
  jobs_ = new QSpinBox;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs_->setRange(1, std::max(64, cores));
  jobs_->setValue(std::max(1, cores - 1));  // a core left for the live run and the window
  jobs_->setPrefix(tr("jobs "));
  jobs_->setToolTip(tr("Configs run at once, one core each"));
  run_ = new QPushButton(tr("Run sweep"));
  run_->setToolTip(tr("Run every config of the grid over the current run, off the GUI thread"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setVisible(false);
  const auto start = [this] {
    QString error;
    startSweep(&error);  // a refusal is shown under the grid
  };
  connect(grid_, &QLineEdit::returnPressed, this, start);
  connect(run_, &QPushButton::clicked, this, start);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    job_->cancel();
    setRunning(false);
    showMessage(tr("Sweep cancelled."), false);
  });
  row->addWidget(grid_, 1);
  for (QWidget* w : {static_cast<QWidget*>(jobs_), static_cast<QWidget*>(run_), static_cast<QWidget*>(cancel_)}) {
    row->addWidget(w);
  }
  return bar;
}

std::array<QPushButton*, 2> SweepPanel::buildFileButtons() {
  auto* open = new QPushButton(tr("Open…"));
  open->setToolTip(tr("Open a sweep CSV written by kvscope-cli sweep (also File > Open sweep CSV…)"));
  connect(open, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a sweep CSV"), QString(),
                                                      tr("Sweep CSV (*.csv);;All files (*)"));
    QString error;
    if (!path.isEmpty() && !openFile(path, &error)) showMessage(error, true);
  });
  save_ = new QPushButton(tr("Save…"));
  save_->setEnabled(false);
  save_->setToolTip(tr("Save the sweep run here as a CSV, the bytes kvscope-cli sweep writes"));
  connect(save_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the sweep"), QStringLiteral("sweep.csv"),
                                                      tr("CSV (*.csv)"));
    QString error;
    if (path.isEmpty()) return;
    showMessage(saveCsv(path, &error) ? tr("Sweep written to %1").arg(path) : error, !error.isEmpty());
  });
  return {open, save_};
}

QWidget* SweepPanel::buildAxisBar() {
  auto* bar = new QWidget;
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  xBox_ = new QComboBox;
  yBox_ = new QComboBox;
  for (QComboBox* box : {xBox_, yBox_}) {
    // Metric keys run to 30 characters: the box shows 10 at least and grows with the panel (the
    // row is the boxes' alone), its list all of each.
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(10);
    box->setMaxVisibleItems(20);
    connect(box, &QComboBox::currentIndexChanged, this, &SweepPanel::redraw);
  }
  row->addWidget(new QLabel(tr("x:")));
  row->addWidget(xBox_, 1);
  row->addWidget(new QLabel(tr("y:")));
  row->addWidget(yBox_, 1);
  return bar;
}

void SweepPanel::setTheme(const Theme& theme) {
  theme_ = &theme;
  scatter_->setTheme(theme);
}

void SweepPanel::showMessage(const QString& text, bool error) {
  message_->setText(text);
  message_->setStyleSheet(error ? QStringLiteral("color: #c0392b") : QString());
  message_->setVisible(!text.isEmpty());
}

bool SweepPanel::openFile(const QString& path, QString* error) {
  auto read = read_sweep_data(path.toStdString());
  if (!read) {
    *error = QString::fromStdString(read.error());
    return false;
  }
  showData(std::make_shared<const sweep_data>(std::move(*read)), QFileInfo(path).fileName());
  showMessage(QString(), false);
  Q_EMIT opened(path);
  return true;
}

void SweepPanel::showData(std::shared_ptr<const sweep_data> sweep, const QString& source) {
  // Keep the axes the user chose when the new data has them; else goodput against exposure.
  const QString x = xBox_->count() ? xBox_->currentText() : QStringLiteral("goodput_rps");
  const QString y = yBox_->count() ? yBox_->currentText() : QStringLiteral("attention_error_exposure");
  data_ = std::move(sweep);
  source_ = source;
  for (QComboBox* box : {xBox_, yBox_}) {
    const QSignalBlocker quiet(box);
    box->clear();
    for (const std::string& key : data_->metric_columns) {
      box->addItem(QString::fromStdString(key));
      if (const auto* info = find_metric(key)) {
        box->setItemData(box->count() - 1, QString::fromUtf8(info->meaning.data(), static_cast<int>(info->meaning.size())),
                         Qt::ToolTipRole);
      }
    }
  }
  for (QComboBox* box : {xBox_, yBox_}) box->view()->setMinimumWidth(box->view()->sizeHintForColumn(0) + 24);
  selectKey(xBox_, x);
  selectKey(yBox_, y);
  redraw();
}

void SweepPanel::redraw() {
  if (!data_ || xBox_->currentIndex() < 0 || yBox_->currentIndex() < 0) {
    scatter_->setRows(nullptr, 0, 0);
    status_->setText(tr("Open a sweep CSV (kvscope-cli sweep) or type a grid and run a sweep of the current run."));
    return;
  }
  scatter_->setRows(data_, static_cast<std::size_t>(xBox_->currentIndex()), static_cast<std::size_t>(yBox_->currentIndex()));
  const std::size_t all = data_->rows.size();
  QString text = tr("<b>%1</b>: %2 configs").arg(source_.toHtmlEscaped()).arg(all);
  const auto [notRun, noValue] = unplottedRows();
  if (notRun > 0) text += tr(", %1 not run (refused as a whole: empty rows)").arg(notRun);
  if (noValue > 0) text += tr(", %1 without a value on these axes").arg(noValue);
  text += scatter_->hasFront() ? tr(" · <b>%1 on the Pareto front</b>").arg(scatter_->frontRows().size())
                               : tr(" · no front: an axis has no better direction");
  status_->setText(text);
}

std::pair<std::size_t, std::size_t> SweepPanel::unplottedRows() const {
  const auto x = static_cast<std::size_t>(xBox_->currentIndex()), y = static_cast<std::size_t>(yBox_->currentIndex());
  std::size_t notRun = 0, noValue = 0;
  for (const sweep_data_row& row : data_->rows) {
    if (std::isfinite(row.metrics[x]) && std::isfinite(row.metrics[y])) continue;
    const bool ran = std::any_of(row.metrics.begin(), row.metrics.end(), [](double v) { return std::isfinite(v); });
    ++(ran ? noValue : notRun);
  }
  return {notRun, noValue};
}

bool SweepPanel::startSweep(QString* error) {
  const auto fail = [&](const std::string& why) {
    *error = QString::fromStdString(why);
    showMessage(*error, true);
    return false;
  };
  if (!base_) return fail("no run to sweep");
  const run_description base = base_();
  const std::string grid = grid_->text().trimmed().toStdString();
  if (grid.empty()) return fail("grid: type axes, e.g. q8_threshold=0.5:0.9:0.1 ewma_alpha=0.1,0.3");
  auto axes = parse_grid(grid, "grid");
  if (!axes) return fail(axes.error());
  auto plan = grid_plan(*axes, "grid");
  if (!plan) return fail(plan.error());
  // As --skip-invalid: a combination refused as a whole gets a row with empty metrics.
  auto checked = check_plan(base, *plan, true);
  if (!checked) return fail(checked.error());
  const auto invalid = std::count_if(checked->begin(), checked->end(), [](auto& r) { return !r.empty(); });
  if (invalid > 0) plan->invalid = std::move(*checked);
  job_->start(base, *plan, static_cast<unsigned>(jobs_->value()));
  setRunning(true);
  progress_->setRange(0, static_cast<int>(plan->configs.size()));
  progress_->setValue(0);
  progress_->setFormat(tr("0/%1 configs").arg(plan->configs.size()));
  showMessage(invalid ? tr("%1 configs cannot run (empty rows, as --skip-invalid)").arg(invalid) : QString(), false);
  return true;
}

void SweepPanel::setRunning(bool running) {
  progress_->setVisible(running);
  cancel_->setVisible(running);
  run_->setEnabled(!running);
}

void SweepPanel::onProgress(int done, int total, double elapsedS, double etaS) {
  progress_->setValue(done);
  progress_->setFormat(done < total ? tr("%1/%2 configs · %3 elapsed · about %4 left")
                                          .arg(done).arg(total).arg(duration(elapsedS), duration(etaS))
                                    : tr("%1/%2 configs").arg(done).arg(total));
}

void SweepPanel::onFinished(const QByteArray& csv, const QString& error) {
  setRunning(false);
  if (!error.isEmpty()) {
    showMessage(tr("A run failed: %1").arg(error), true);
    Q_EMIT sweepFinished(error);
    return;
  }
  auto read = parse_sweep_data(csv.toStdString(), "the sweep");
  if (!read) {  // a bug, not the user's: what was written cannot be read
    showMessage(QString::fromStdString(read.error()), true);
    Q_EMIT sweepFinished(QString::fromStdString(read.error()));
    return;
  }
  csv_ = csv;
  save_->setEnabled(true);
  showData(std::make_shared<const sweep_data>(std::move(*read)), tr("sweep of %1").arg(grid_->text().trimmed()));
  Q_EMIT sweepFinished(QString());
}

bool SweepPanel::saveCsv(const QString& path, QString* error) const {
  if (csv_.isEmpty()) {
    *error = tr("no sweep was run here to save");
    return false;
  }
  if (auto r = write_file_atomically(path.toStdString(), csv_.toStdString()); !r) {
    *error = QString::fromStdString(r.error());
    return false;
  }
  return true;
}

bool SweepPanel::pickRow(std::size_t row, QString* error) {
  if (!data_ || row >= data_->rows.size() || !base_) return false;
  const sweep_data_row& r = data_->rows[row];
  sweep_plan one;
  one.configs = {r.config};
  one.origins = {"config " + std::to_string(r.index)};
  for (const auto& s : r.config) one.columns.push_back(s.name);
  const run_description base = base_();
  if (auto checked = check_plan(base, one); !checked) {
    *error = tr("Config %1 cannot run over the current run: %2").arg(r.index).arg(QString::fromStdString(checked.error()));
    return false;
  }
  const QString what = tr("config %1 (%2)").arg(r.index).arg(QString::fromStdString(describe(r.config)));
  showMessage(tr("What-if: %1 over the current run (see Compare)").arg(what), false);
  Q_EMIT whatIfRequested(config_run(base, r.config), what);
  return true;
}

}  // namespace kvscope::ui
