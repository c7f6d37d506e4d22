#include "panels/run_list_panel.hpp"

#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "run/summary_compare.hpp"
#include "panels/run_store.hpp"

namespace kvscope::ui {
namespace {

constexpr int idRole = Qt::UserRole + 1;

QString figure(double v, const char* suffix) {
  return std::isnan(v) ? QStringLiteral("—") : QString::number(v, 'g', 3) + QString::fromLatin1(suffix);
}

QString seconds(double v) { return std::fabs(v) < 1 ? figure(v * 1000, " ms") : figure(v, " s"); }

QString shortLoad(const QString& load) {
  return load.startsWith(QStringLiteral("gen:")) ? QObject::tr("generated") : QFileInfo(load).fileName();
}

}  // namespace

RunListPanel::RunListPanel(RunStore* store, QWidget* parent) : QWidget(parent), store_(store) {
  setObjectName(QStringLiteral("runListPanel"));
  table_ = new QTableWidget(0, 8);
  // The figures before the config and the setting: the columns a comparison starts from.
  table_->setHorizontalHeaderLabels({tr("★"), tr("name"), tr("goodput"), tr("TTFT p99"), tr("config"), tr("model"),
                                     tr("GPU"), tr("load")});
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  pin_ = new QPushButton(tr("Baseline"));
  pin_->setToolTip(tr("Pin the selected run as the baseline others are compared with (Ctrl+B)"));
  compare_ = new QPushButton(tr("Compare"));
  compare_->setToolTip(tr("Compare the two selected runs, or the selected one with the baseline"));
  open_ = new QPushButton(tr("Open"));
  open_->setToolTip(tr("Run it again live from its session file"));
  export_ = new QPushButton(tr("Export…"));
  export_->setToolTip(tr("Write its session file (kvscope --session and kvscope-cli replay re-open it)"));
  remove_ = new QPushButton(tr("Remove"));
  auto* buttons = new QGridLayout;  // two rows: the dock is narrow
  buttons->addWidget(pin_, 0, 0);
  buttons->addWidget(compare_, 0, 1);
  buttons->addWidget(open_, 0, 2);
  buttons->addWidget(export_, 1, 0);
  buttons->addWidget(remove_, 1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(table_, 1);
  layout->addLayout(buttons);
  connect(pin_, &QPushButton::clicked, this, &RunListPanel::pinBaseline);
  connect(compare_, &QPushButton::clicked, this, &RunListPanel::compareSelected);
  connect(open_, &QPushButton::clicked, this, [this] {
    if (selectedIds().size() == 1) Q_EMIT openRequested(selectedIds().front());
  });
  connect(export_, &QPushButton::clicked, this, [this] {
    if (selectedIds().size() == 1) Q_EMIT exportRequested(selectedIds().front());
  });
  connect(remove_, &QPushButton::clicked, this, [this] {
    for (const QString& id : selectedIds()) store_->remove(id);
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &RunListPanel::updateButtons);
  connect(store_, &RunStore::changed, this, &RunListPanel::refresh);
  refresh();
}

void RunListPanel::refresh() {
  const QStringList selected = selectedIds();
  const auto keys = headline_metric_keys();
  const auto column = [&](std::string_view key) {
    return static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
  };
  const std::size_t goodput = column("goodput_rps"), ttft = column("latency.ttft_s.p99");
  table_->setRowCount(0);
  for (const StoredRun& r : store_->runs()) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    const auto metric = [&](std::size_t i) { return i < r.headline.size() ? r.headline[i] : NAN; };
    const QStringList cells = {r.baseline ? tr("★") : QString(), r.name, figure(metric(goodput), " req/s"),
                               seconds(metric(ttft)), r.config, r.model,
                               r.gpu.isEmpty() ? tr("—") : r.gpu, shortLoad(r.load)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setData(idRole, r.id);
      item->setToolTip(tr("%1\nload: %2\nconfig: %3\nfinished %4")
                           .arg(r.name, r.load, r.config, r.finished.toString(Qt::ISODate)));
      table_->setItem(row, c, item);
    }
  }
  select(selected);
  updateButtons();
}

QStringList RunListPanel::selectedIds() const {
  QStringList ids;
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (table_->item(row, 0)->isSelected()) ids << table_->item(row, 0)->data(idRole).toString();
  }
  return ids;
}

void RunListPanel::select(const QStringList& ids) {
  table_->clearSelection();
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (!ids.contains(table_->item(row, 0)->data(idRole).toString())) continue;
    table_->selectionModel()->select(table_->model()->index(row, 0),
                                     QItemSelectionModel::Select | QItemSelectionModel::Rows);
  }
}

void RunListPanel::pinBaseline() {
  const QStringList ids = selectedIds();
  QString id = ids.size() == 1 ? ids.front() : QString();
  if (id.isEmpty() && ids.isEmpty() && !store_->runs().isEmpty()) id = store_->runs().back().id;
  if (id.isEmpty()) return;
  const StoredRun* current = store_->baseline();
  store_->setBaseline(current && current->id == id ? QString() : id);
}

void RunListPanel::compareSelected() {
  const QStringList ids = selectedIds();
  if (ids.size() == 2) {
    Q_EMIT compareRequested(ids[0], ids[1]);
  } else if (ids.size() == 1 && store_->baseline() && store_->baseline()->id != ids.front()) {
    Q_EMIT compareRequested(store_->baseline()->id, ids.front());
  }
}

void RunListPanel::updateButtons() {
  const QStringList ids = selectedIds();
  const StoredRun* base = store_->baseline();
  compare_->setEnabled(ids.size() == 2 || (ids.size() == 1 && base && base->id != ids.front()));
  open_->setEnabled(ids.size() == 1);
  export_->setEnabled(ids.size() == 1);
  remove_->setEnabled(!ids.isEmpty());
  pin_->setEnabled(ids.size() <= 1 && !store_->runs().isEmpty());
}

}  // namespace kvscope::ui
