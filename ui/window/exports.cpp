#include "window/exports.hpp"

#include <QFile>
#include <QFileInfo>

#include <filesystem>
#include <functional>

#include "io/metrics_csv.hpp"
#include "common/qcustomplot_include.hpp"

namespace kvscope::ui {
namespace {

// Writes through a temporary file in the same directory, renamed over the target at the end:
// readers see the old file or the whole new one.
bool writeViaTemp(const QString& path, const std::function<bool(const QString&)>& write, QString* error) {
  const QString tmp = path + QStringLiteral(".tmp-kvscope");
  if (!write(tmp)) {
    QFile::remove(tmp);
    if (error) *error = QObject::tr("%1: could not write the file").arg(path);
    return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp.toStdString(), path.toStdString(), ec);
  if (ec) {
    QFile::remove(tmp);
    if (error) *error = QObject::tr("%1: %2").arg(path, QString::fromStdString(ec.message()));
    return false;
  }
  return true;
}

}  // namespace

bool exportPlotFile(QCustomPlot* plot, const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QLatin1String("png") && suffix != QLatin1String("pdf")) {
    if (error) *error = QObject::tr("%1: choose a .png or .pdf file name").arg(path);
    return false;
  }
  // A file has no legend beside it: put the plot's own in for the export.
  const bool hadLegend = plot->legend->layout() == plot->plotLayout();
  showLegendAbove(plot, true);
  const bool ok = writeViaTemp(path, [&](const QString& tmp) {
    return suffix == QLatin1String("png") ? plot->savePng(tmp, 0, 0, 2.0)
                                          : plot->savePdf(tmp, 0, 0, QCP::epNoCosmetic,
                                                          QStringLiteral("kvscope"));
  }, error);
  showLegendAbove(plot, hadLegend);
  plot->replot(QCustomPlot::rpQueuedReplot);
  return ok;
}

bool exportMetricsCsv(const metrics_history& history, const QString& path, QString* error, QString* note) {
  metrics_csv_writer csv;
  if (auto opened = csv.open(path.toStdString()); !opened) {
    if (error) *error = QString::fromStdString(opened.error());
    return false;
  }
  const auto rows = history.recent();
  for (const step_metrics& m : rows) csv.write(m);
  if (auto done = csv.finish(); !done) {
    if (error) *error = QString::fromStdString(done.error());
    return false;
  }
  if (note) {
    *note = rows.size() == history.total()
                ? QObject::tr("%1 steps").arg(rows.size())
                : QObject::tr("the last %1 of %2 steps (kvscope-cli replay --session … --metrics "
                              "writes them all)").arg(rows.size()).arg(history.total());
  }
  return true;
}

}  // namespace kvscope::ui
