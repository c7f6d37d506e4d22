#include "panels/compare_panel.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "run/summary_compare.hpp"
#include "util/byte_size.hpp"

namespace kvscope::ui {
namespace {

constexpr int valueRole = Qt::UserRole + 1;  // the exact double behind a cell

// A value in the metric's unit, compactly: seconds as ms below 1 s, bytes as KiB/MiB.
QString formatValue(double v, std::string_view unit, bool signedDelta) {
  if (std::isnan(v)) return QStringLiteral("—");
  const QString sign = signedDelta && v > 0 ? QStringLiteral("+") : QString();
  if (unit == "bytes") {
    const QString size = QString::fromStdString(format_byte_size(static_cast<std::uint64_t>(std::fabs(v))));
    return (signedDelta && v != 0 ? (v > 0 ? QStringLiteral("+") : QStringLiteral("−")) : QString()) + size;
  }
  if (unit == "s" && std::fabs(v) < 1) return sign + QString::number(v * 1000, 'g', 3) + QStringLiteral(" ms");
  if (unit == "s") return sign + QString::number(v, 'g', 3) + QStringLiteral(" s");
  if (v == std::floor(v) && std::fabs(v) < 1e12) return sign + QString::number(static_cast<qint64>(v));
  return sign + QString::number(v, 'g', 3);
}

}  // namespace

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("comparePanel"));
  const auto keys = headline_metric_keys();
  table_ = new QTableWidget(static_cast<int>(keys.size()), 4);
  table_->setHorizontalHeaderLabels({tr("metric"), tr("current"), tr("what-if"), tr("change")});
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  for (int r = 0; r < table_->rowCount(); ++r) {
    const metric_info* info = find_metric(keys[static_cast<std::size_t>(r)]);
    auto* title = new QTableWidgetItem(QString::fromStdString(headline_name(info->key)));
    title->setToolTip(QString::fromLatin1(info->meaning.data(), static_cast<qsizetype>(info->meaning.size())));
    table_->setItem(r, 0, title);
    for (int c = 1; c < 4; ++c) {
      auto* item = new QTableWidgetItem;
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(r, c, item);
    }
  }
  status_ = new QLabel;
  status_->setWordWrap(true);
  verdict_ = new QLabel;
  verdict_->setObjectName(QStringLiteral("compareVerdict"));
  verdict_->setWordWrap(true);
  verdict_->setStyleSheet(QStringLiteral("font-weight: bold"));
  verdict_->setToolTip(tr("The headline changes of 1 % or more, against the reference column"));
  apply_ = new QPushButton(tr("&Apply what-if"));
  apply_->setToolTip(tr("Make the what-if config the current one: the live run starts again under it"));
  discard_ = new QPushButton(tr("Discard"));
  connect(apply_, &QPushButton::clicked, this, &ComparePanel::applyRequested);
  connect(discard_, &QPushButton::clicked, this, &ComparePanel::discardRequested);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(apply_);
  buttons->addWidget(discard_);
  buttons->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(status_);
  layout->addWidget(verdict_);
  layout->addWidget(table_, 1);
  layout->addLayout(buttons);
  setWhatIfActions(false, false);
  setStatus(tr("Move a threshold, alpha or hysteresis: the whole load is run again with it in the "
               "background and compared here with the current config."));
}

void ComparePanel::setTheme(const Theme& theme) {
  theme_ = &theme;
  std::vector<double> ref, other;
  for (int r = 0; r < table_->rowCount(); ++r) {
    ref.push_back(value(r, referenceColumn));
    other.push_back(value(r, otherColumn));
  }
  fillDeltas(ref, other);
}

void ComparePanel::showComparison(const QString& referenceName, const std::vector<double>& reference,
                                  const QString& otherName, const std::vector<double>& other) {
  table_->horizontalHeaderItem(referenceColumn)->setText(referenceName);
  table_->horizontalHeaderItem(otherColumn)->setText(otherName);
  fillColumn(referenceColumn, reference);
  fillColumn(otherColumn, other);
  fillDeltas(reference, other);
}

void ComparePanel::fillColumn(Column column, const std::vector<double>& values) {
  const auto keys = headline_metric_keys();
  for (int r = 0; r < table_->rowCount(); ++r) {
    QTableWidgetItem* item = table_->item(r, column);
    const bool have = static_cast<std::size_t>(r) < values.size();
    const double v = have ? values[static_cast<std::size_t>(r)] : NAN;
    item->setData(valueRole, have ? QVariant(v) : QVariant());
    item->setText(have ? formatValue(v, find_metric(keys[static_cast<std::size_t>(r)])->unit, false)
                       : QStringLiteral("…"));
  }
}

void ComparePanel::fillDeltas(const std::vector<double>& reference, const std::vector<double>& other) {
  const std::size_t n = headline_metric_keys().size();
  const bool both = reference.size() == n && other.size() == n;
  const auto changes = both ? compare_headlines(reference, other) : std::vector<metric_change>{};
  verdict_->setText(both ? columnName(otherColumn) + QStringLiteral(": ") +
                               QString::fromStdString(change_summary(changes))
                         : QString());
  verdict_->setVisible(both);
  const QColor better = theme_->dark ? QColor(0x6f, 0xd0, 0x8c) : QColor(0x1e, 0x84, 0x49);
  const QColor worse = theme_->dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xc0, 0x39, 0x2b);
  for (int r = 0; r < table_->rowCount(); ++r) {
    QTableWidgetItem* item = table_->item(r, deltaColumn);
    if (!both) {
      item->setText(QString());
      item->setData(valueRole, QVariant());
      continue;
    }
    const metric_change& c = changes[static_cast<std::size_t>(r)];
    item->setData(valueRole, c.delta);
    QString text = c.verdict == change_verdict::same ? tr("same") : formatValue(c.delta, c.info->unit, true);
    if (c.verdict != change_verdict::same && !std::isnan(c.relative) && c.info->unit != "bytes") {
      text += QStringLiteral(" (%1)").arg(QString::fromStdString(percent_change(c.relative)));
    }
    item->setText(text);
    // Colour only what moved by 1 % or more; smaller changes are the noise of a re-run.
    const bool judged = material(c) && (c.verdict == change_verdict::better || c.verdict == change_verdict::worse);
    item->setForeground(judged ? (c.verdict == change_verdict::better ? better : worse) : theme_->mutedText);
    QFont f = item->font();
    f.setBold(judged);
    item->setFont(f);
    const bool directed = c.verdict == change_verdict::better || c.verdict == change_verdict::worse;
    item->setToolTip(judged    ? (c.verdict == change_verdict::better ? tr("better") : tr("worse"))
                     : directed ? tr("under 1 % of the current value: within a re-run's noise")
                                : tr("no better direction, or unchanged"));
  }
}

void ComparePanel::setStatus(const QString& text) { status_->setText(text); }

void ComparePanel::setWhatIfActions(bool shown, bool applicable) {
  apply_->setVisible(shown);
  discard_->setVisible(shown);
  apply_->setEnabled(applicable);
}

int ComparePanel::rowOf(std::string_view key) const {
  const auto keys = headline_metric_keys();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return static_cast<int>(i);
  }
  return -1;
}

double ComparePanel::value(int row, Column column) const {
  const QVariant v = table_->item(row, column)->data(valueRole);
  return v.isValid() ? v.toDouble() : NAN;
}

QString ComparePanel::columnName(Column column) const { return table_->horizontalHeaderItem(column)->text(); }

QString ComparePanel::verdict() const { return verdict_->text(); }

}  // namespace kvscope::ui
