#include "panels/request_table.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

#include "common/utf8_text.hpp"
#include "outcome/request_miss.hpp"
#include "outcome/requests_csv.hpp"
#include "util/text_file.hpp"

namespace kvscope::ui {
namespace {

// The fixed columns, then one per latency part (outcome/latency_parts.hpp), in milliseconds.
// "missed because" next to the outcome: it is what a reader of a run that missed looks for first.
enum Column {
  id, outcome, missedBecause, arrival, ttft, tpot, e2e, queue, prompt, output, cached, preempted, reason, fixed_columns
};
constexpr int columns = fixed_columns + static_cast<int>(latency_part_columns.size());
static_assert(missedBecause == RequestTableModel::missedColumn && fixed_columns == RequestTableModel::firstPartColumn);
constexpr std::uint8_t metSlo = miss_cause_count;  // RequestTableModel::causes_ of a request that met it

// "wait_kv_memory_s" -> "wait kv memory (ms)"
QString partHeader(std::string_view key) {
  QString name = QString::fromLatin1(key.data(), static_cast<int>(key.size()));
  name.chop(2);  // "_s"
  return name.replace(QLatin1Char('_'), QLatin1Char(' ')) + QStringLiteral(" (ms)");
}

// Seconds as milliseconds, or "" when undefined (NaN): an empty cell, as in the CSV.
QVariant milliseconds(double seconds, int role) {
  if (std::isnan(seconds)) return role == RequestTableModel::sortRole ? QVariant(-1.0) : QVariant(QString());
  if (role == RequestTableModel::sortRole) return seconds;
  return QString::number(seconds * 1000, 'f', seconds < 1 ? 1 : 0);
}

}  // namespace

RequestTableModel::RequestTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RequestTableModel::setRecords(RequestsPtr records, const slo_spec& slo) {
  beginResetModel();
  records_ = std::move(records);
  slo_ = slo;
  // Once here rather than in data(): sorting asks for a cell n log n times.
  causes_.clear();
  if (records_) {
    causes_.reserve(records_->size());
    for (const request_record& r : *records_) {
      const auto cause = miss_cause_of(slo_, r);
      causes_.push_back(cause ? static_cast<std::uint8_t>(*cause) : metSlo);
    }
  }
  endResetModel();
}

std::optional<miss_cause> RequestTableModel::missCause(int row) const {
  if (row < 0 || static_cast<std::size_t>(row) >= causes_.size() || causes_[static_cast<std::size_t>(row)] == metSlo) {
    return std::nullopt;
  }
  return static_cast<miss_cause>(causes_[static_cast<std::size_t>(row)]);
}

int RequestTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !records_ ? 0 : static_cast<int>(records_->size());
}

int RequestTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : columns; }

QVariant RequestTableModel::data(const QModelIndex& index, int role) const {
  if (index.isValid() && index.column() == missedBecause && role == Qt::ToolTipRole) {
    const auto cause = missCause(index.row());
    return cause ? tr("%1 (%2): the cause that cost it most time").arg(qs(describe(*cause)), qs(key_of(*cause)))
                 : QVariant();
  }
  if (!index.isValid() || !records_ || (role != Qt::DisplayRole && role != sortRole)) {
    if (role == Qt::TextAlignmentRole && index.column() != outcome && index.column() != reason &&
        index.column() != missedBecause) {
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
  }
  const request_record& r = (*records_)[static_cast<std::size_t>(index.row())];
  const auto count = [role](std::uint64_t n) { return role == sortRole ? QVariant(static_cast<double>(n)) : QVariant(QString::number(n)); };
  switch (index.column()) {
    case id: return count(r.request_id);
    case outcome: return QString::fromLatin1(to_string(r.outcome).data());
    case arrival: return role == sortRole ? QVariant(r.arrival_s) : QVariant(QString::number(r.arrival_s, 'f', 3));
    case ttft: return milliseconds(r.ttft_s(), role);
    case tpot: return milliseconds(r.tpot_s(), role);
    case e2e: return milliseconds(r.e2e_s(), role);
    case queue: return milliseconds(r.queue_s(), role);
    case prompt: return count(r.prompt_tokens);
    case output: return count(r.output_tokens);
    case cached: return count(r.cached_prompt_tokens);
    case preempted: return count(r.preemptions);
    case reason: return QString::fromStdString(r.reason);
    case missedBecause: {
      const auto cause = missCause(index.row());
      return cause ? qs(describe(*cause)) : QString();
    }
    default: break;
  }
  const int part = index.column() - fixed_columns;
  if (part >= 0 && part < static_cast<int>(latency_part_columns.size())) {
    return milliseconds(r.parts.*latency_part_columns[static_cast<std::size_t>(part)].member, role);
  }
  return {};
}

QVariant RequestTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const names[] = {"request", "outcome", "missed because", "arrival (s)", "TTFT (ms)", "TPOT (ms)",
                                      "e2e (ms)", "queue (ms)", "prompt", "output", "cached", "preempted", "reason"};
  static const char* const tips[] = {
      "The request's id in the load", "Finished, or rejected (it can never fit)",
      "Why it missed the SLO: the cause that cost it most time (docs/why-requests-miss.md); empty when it met it",
      "When it arrived, simulated seconds",
      "Time to first token: first token - arrival", "Time per output token after the first",
      "End to end: finish - arrival", "Waiting before it was first scheduled", "Prompt tokens",
      "Output tokens emitted", "Prompt tokens found in the prefix cache", "Times it was preempted (recomputed)",
      "Why it was rejected"};
  if (section < 0 || section >= columns) return {};
  if (section >= fixed_columns) {  // a latency part: where the request's time went
    const auto& part = latency_part_columns[static_cast<std::size_t>(section - fixed_columns)];
    if (role == Qt::DisplayRole) return partHeader(part.key);
    if (role == Qt::ToolTipRole) {
      return QString::fromLatin1(part.meaning.data(), static_cast<int>(part.meaning.size())) +
             (part.before_first_token ? tr(" (part of TTFT)") : tr(" (part of the decode time)"));
    }
    return {};
  }
  if (role == Qt::DisplayRole) return tr(names[section]);
  if (role == Qt::ToolTipRole) return tr(tips[section]);
  return {};
}

RequestFilterModel::RequestFilterModel(RequestTableModel* source, QObject* parent)
    : QSortFilterProxyModel(parent), source_(source) {
  setSourceModel(source);
  setSortRole(RequestTableModel::sortRole);
}

void RequestFilterModel::setShown(int shown) {
  if (shown == shown_) return;
  shown_ = shown;
  invalidateFilter();
}

bool RequestFilterModel::filterAcceptsRow(int row, const QModelIndex&) const {
  if (shown_ == all) return true;
  const auto cause = source_->missCause(row);
  if (shown_ == met) return !cause;
  if (shown_ == missed) return cause.has_value();
  return cause && static_cast<int>(*cause) == shown_;
}

RequestTableDialog::RequestTableDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("requestTable"));
  setWindowTitle(tr("Requests"));
  auto* layout = new QVBoxLayout(this);
  source_ = new QLabel;
  source_->setWordWrap(true);
  layout->addWidget(source_);
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(new QLabel(tr("Show")));
  filterBox_ = new QComboBox;
  filterBox_->setObjectName(QStringLiteral("missFilter"));
  filterBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  filterRow->addWidget(filterBox_);
  filterRow->addStretch(1);
  layout->addLayout(filterRow);
  model_ = new RequestTableModel(this);
  sorted_ = new RequestFilterModel(model_, this);
  connect(filterBox_, &QComboBox::currentIndexChanged, this, [this] {
    if (filterBox_->currentIndex() >= 0) sorted_->setShown(filterBox_->currentData().toInt());
  });
  view_ = new QTableView;
  view_->setModel(sorted_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(-1, Qt::AscendingOrder);  // completion order until a header is clicked
  view_->setAlternatingRowColors(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->verticalHeader()->setVisible(false);
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
  view_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(view_, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  QPushButton* open = buttons->addButton(tr("Open CSV…"), QDialogButtonBox::ActionRole);
  open->setToolTip(tr("Show a per-request CSV written by kvscope-cli simulate --requests FILE"));
  connect(open, &QPushButton::clicked, this, &RequestTableDialog::openCsv);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(900, 520);
}

void RequestTableDialog::setSlo(const std::string& slo) { sloText_ = slo; }

void RequestTableDialog::setRecords(RequestsPtr records, const QString& source) {
  std::size_t finished = 0;
  if (records) {
    for (const request_record& r : *records) finished += r.outcome == request_outcome::finished;
  }
  const std::size_t total = records ? records->size() : 0;
  const auto slo = parse_slo(sloText_);
  model_->setRecords(std::move(records), slo ? *slo : slo_spec{});
  fillFilterBox();
  view_->resizeColumnsToContents();
  const QString misses = model_->slo().empty()
                             ? tr("No SLO is set, so none missed one.")
                             : tr("'missed because' is judged against --slo %1 (the live run's).")
                                   .arg(QString::fromStdString(sloText_).toHtmlEscaped());
  source_->setText(tr("%1 requests (%2 finished, %3 rejected) from %4. Click a header to sort. %5 The columns "
                      "after 'reason' say where each request's time went (they add up to its TTFT and decode time).")
                       .arg(total).arg(finished).arg(total - finished).arg(source.toHtmlEscaped(), misses));
}

void RequestTableDialog::fillFilterBox() {
  const int chosen = filterBox_->currentIndex() >= 0 ? filterBox_->currentData().toInt() : RequestFilterModel::all;
  std::array<int, miss_cause_count> byCause{};
  int missed = 0;
  for (int row = 0; row < model_->rowCount(); ++row) {
    if (const auto cause = model_->missCause(row)) {
      ++byCause[static_cast<std::size_t>(*cause)];
      ++missed;
    }
  }
  const QSignalBlocker quiet(filterBox_);
  filterBox_->clear();
  filterBox_->addItem(tr("all requests (%1)").arg(model_->rowCount()), RequestFilterModel::all);
  filterBox_->addItem(tr("met the SLO (%1)").arg(model_->rowCount() - missed), RequestFilterModel::met);
  filterBox_->addItem(tr("missed it (%1)").arg(missed), RequestFilterModel::missed);
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    filterBox_->addItem(tr("missed: %1 (%2)").arg(qs(describe(static_cast<miss_cause>(c)))).arg(byCause[c]),
                        static_cast<int>(c));
  }
  const bool slo = !model_->slo().empty();
  filterBox_->setEnabled(slo);
  filterBox_->setToolTip(slo ? tr("Only the requests that met the SLO, missed it, or missed it for one cause")
                             : tr("No SLO set: every request is shown"));
  const int index = slo ? filterBox_->findData(chosen) : 0;
  filterBox_->setCurrentIndex(std::max(index, 0));
  sorted_->setShown(filterBox_->currentData().toInt());
}

bool RequestTableDialog::loadCsv(const QString& path, QString* error) {
  const auto text = read_text_file(path.toStdString());
  if (!text) {
    if (error) *error = QString::fromStdString(text.error());
    return false;
  }
  auto rows = parse_requests_csv(*text, path.toStdString());
  if (!rows) {
    if (error) *error = QString::fromStdString(rows.error());
    return false;
  }
  setRecords(std::make_shared<const std::vector<request_record>>(std::move(*rows)), path);
  return true;
}

QString RequestTableDialog::sourceText() const { return source_->text(); }

void RequestTableDialog::openCsv() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a per-request CSV"), {},
                                                    tr("Per-request CSV (*.csv);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!loadCsv(path, &error)) source_->setText(tr("<b>Could not open it:</b> %1").arg(error.toHtmlEscaped()));
}

}  // namespace kvscope::ui
