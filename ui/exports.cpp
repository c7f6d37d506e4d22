#include "exports.hpp"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <filesystem>
#include <functional>

#include "kvscope_version.hpp"
#include "qcustomplot_include.hpp"

namespace kvscope::ui {
namespace {

QString levelName(precision p) { return QString::fromLatin1(tag(p).data()); }

QJsonObject policyJson(const policy_config& c) {
  return QJsonObject{{QStringLiteral("q8_threshold"), static_cast<double>(c.q8_threshold)},
                     {QStringLiteral("q4_threshold"), static_cast<double>(c.q4_threshold)},
                     {QStringLiteral("hysteresis"), static_cast<double>(c.hysteresis)},
                     {QStringLiteral("ewma_alpha"), static_cast<double>(c.ewma_alpha)},
                     {QStringLiteral("min_level"), levelName(c.min_level)},
                     {QStringLiteral("max_level"), levelName(c.max_level)}};
}

QJsonObject commandJson(const EngineBridge::PostedCommand& posted) {
  QJsonObject o{{QStringLiteral("after_step"), static_cast<qint64>(posted.snapshotStep)}};
  std::visit(
      [&o](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, play_command>) o[QStringLiteral("command")] = QStringLiteral("play");
        if constexpr (std::is_same_v<T, pause_command>) o[QStringLiteral("command")] = QStringLiteral("pause");
        if constexpr (std::is_same_v<T, reset_command>) o[QStringLiteral("command")] = QStringLiteral("reset");
        if constexpr (std::is_same_v<T, step_command>) {
          o[QStringLiteral("command")] = QStringLiteral("step");
          o[QStringLiteral("steps")] = static_cast<qint64>(c.steps);
        }
        if constexpr (std::is_same_v<T, speed_command>) {
          o[QStringLiteral("command")] = QStringLiteral("speed");
          o[QStringLiteral("steps_per_second")] = c.steps_per_second;
        }
        if constexpr (std::is_same_v<T, reconfigure_command>) {
          o[QStringLiteral("command")] = QStringLiteral("reconfigure");
          o[QStringLiteral("policy")] = policyJson(c.config);
        }
      },
      posted.command);
  return o;
}

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
  return writeViaTemp(path, [&](const QString& tmp) {
    return suffix == QLatin1String("png") ? plot->savePng(tmp, 0, 0, 2.0)
                                          : plot->savePdf(tmp, 0, 0, QCP::epNoCosmetic,
                                                          QStringLiteral("kvscope"));
  }, error);
}

QByteArray sessionRecordJson(const SessionRecord& r) {
  QJsonArray commands;
  if (r.latest && !r.latest->command_log.empty()) {
    for (const logged_command& c : r.latest->command_log) {
      QJsonObject o = commandJson({c.step, c.command});
      o.remove(QStringLiteral("after_step"));
      o[QStringLiteral("applied_before_step")] = static_cast<qint64>(c.step);
      commands.append(o);
    }
  } else {
    for (const auto& c : r.posted) commands.append(commandJson(c));
  }
  QJsonObject root{{QStringLiteral("kvscope_session"), 1},
                   {QStringLiteral("tool_version"), QString::fromLatin1(version_string)},
                   {QStringLiteral("load"), r.load},
                   {QStringLiteral("model"), r.model},
                   {QStringLiteral("seed"), static_cast<qint64>(r.seed)},
                   {QStringLiteral("policy"), policyJson(r.policy)},
                   {QStringLiteral("commands"), commands},
                   {QStringLiteral("note"),
                    QStringLiteral("a record of this window's run; after_step (when present) is the "
                                   "newest step the window had seen when it posted the command")}};
  if (r.latest) root[QStringLiteral("step")] = static_cast<qint64>(r.latest->step);
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

}  // namespace kvscope::ui
