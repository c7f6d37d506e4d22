#include "panels/run_store.hpp"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include <cmath>

#include "common/utf8_text.hpp"
#include "io/session_file.hpp"
#include "run/summary_compare.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {
namespace {

constexpr int indexVersion = 1;

QJsonObject toJson(const StoredRun& r) {
  QJsonObject headline;
  const auto keys = headline_metric_keys();
  for (std::size_t i = 0; i < keys.size() && i < r.headline.size(); ++i) {
    // JSON has no NaN: an unmeasured value is null.
    headline.insert(qs(keys[i]), std::isnan(r.headline[i]) ? QJsonValue() : QJsonValue(r.headline[i]));
  }
  return {{QStringLiteral("id"), r.id},         {QStringLiteral("name"), r.name},
          {QStringLiteral("load"), r.load},     {QStringLiteral("model"), r.model},
          {QStringLiteral("gpu"), r.gpu},       {QStringLiteral("config"), r.config},
          {QStringLiteral("finished"), r.finished.toString(Qt::ISODate)},
          {QStringLiteral("baseline"), r.baseline}, {QStringLiteral("headline"), headline}};
}

StoredRun fromJson(const QJsonObject& o) {
  StoredRun r;
  r.id = o.value(QStringLiteral("id")).toString();
  r.name = o.value(QStringLiteral("name")).toString();
  r.load = o.value(QStringLiteral("load")).toString();
  r.model = o.value(QStringLiteral("model")).toString();
  r.gpu = o.value(QStringLiteral("gpu")).toString();
  r.config = o.value(QStringLiteral("config")).toString();
  r.finished = QDateTime::fromString(o.value(QStringLiteral("finished")).toString(), Qt::ISODate);
  r.baseline = o.value(QStringLiteral("baseline")).toBool();
  const QJsonObject headline = o.value(QStringLiteral("headline")).toObject();
  for (std::string_view key : headline_metric_keys()) {
    const QJsonValue v = headline.value(qs(key));
    // Stored before the headline had q3's peak: 0 where the config could not reach q3 (every
    // config that can names q3), so its peak memory still compares; unknown otherwise.
    if (key == "peak_bytes_per_level.q3" && !headline.contains(qs(key)) && !r.config.contains(QStringLiteral("q3"))) {
      r.headline.push_back(0);
      continue;
    }
    r.headline.push_back(v.isDouble() ? v.toDouble() : NAN);
  }
  return r;
}

}  // namespace

QString compactConfig(const policy_config& c) {
  // Another family: its own parameters, as core describes them (the thresholds are not used).
  if (c.family != policy_family::ewma) return QString::fromStdString(describe(c)).replace(QLatin1Char(' '), QStringLiteral(" · "));
  QString text = QObject::tr("q8 %1 · q4 %2 · h %3 · α %4")
                     .arg(double{c.q8_threshold}, 0, 'g', 3)
                     .arg(double{c.q4_threshold}, 0, 'g', 3)
                     .arg(double{c.hysteresis}, 0, 'g', 3)
                     .arg(double{c.ewma_alpha}, 0, 'g', 3);
  if (c.q3_threshold) text += QObject::tr(" · q3 %1").arg(double{*c.q3_threshold}, 0, 'g', 3);
  if (c.min_level != precision::fp16 || c.max_level != precision::q4) {
    text += QStringLiteral(" · %1…%2").arg(levelName(c.min_level),
                                           levelName(c.max_level));
  }
  return text;
}

RunStore::RunStore(QString directory, QObject* parent)
    : QObject(parent), dir_(directory.isEmpty() ? defaultDirectory() : std::move(directory)) {
  load();
}

QString RunStore::defaultDirectory() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("runs"));
}

void RunStore::load() {
  QFile f(QDir(dir_).filePath(QStringLiteral("index.json")));
  if (!f.open(QIODevice::ReadOnly)) return;
  const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
  if (root.value(QStringLiteral("version")).toInt() != indexVersion) return;  // unknown: start afresh
  for (const QJsonValue v : root.value(QStringLiteral("runs")).toArray()) {
    StoredRun r = fromJson(v.toObject());
    if (!r.id.isEmpty() && QFile::exists(sessionPath(r.id))) runs_.push_back(std::move(r));
  }
}

bool RunStore::save(QString* error) {
  QJsonArray list;
  for (const StoredRun& r : runs_) list.push_back(toJson(r));
  const QJsonObject root{{QStringLiteral("version"), indexVersion}, {QStringLiteral("runs"), list}};
  QSaveFile f(QDir(dir_).filePath(QStringLiteral("index.json")));
  if (!QDir().mkpath(dir_) || !f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(root).toJson()) < 0 ||
      !f.commit()) {
    if (error) *error = tr("%1: could not write the run index (%2)").arg(f.fileName(), f.errorString());
    return false;
  }
  return true;
}

const StoredRun* RunStore::find(const QString& id) const {
  for (const StoredRun& r : runs_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

const StoredRun* RunStore::baseline() const {
  for (const StoredRun& r : runs_) {
    if (r.baseline) return &r;
  }
  return nullptr;
}

QString RunStore::sessionPath(const QString& id) const {
  return QDir(dir_).filePath(id + QStringLiteral(".kvscope.json"));
}

QString RunStore::add(const run_description& run, const run_summary& summary, const QString& name, QString* error) {
  const std::string session = session_to_json(run);
  const QString id = QString::fromLatin1(
      QCryptographicHash::hash(QByteArray::fromStdString(session), QCryptographicHash::Sha256).toHex().left(16));
  if (find(id)) return id;
  if (!QDir().mkpath(dir_)) {
    if (error) *error = tr("%1: could not create the folder").arg(dir_);
    return {};
  }
  if (auto written = write_session(sessionPath(id).toStdString(), run); !written) {
    if (error) *error = QString::fromStdString(written.error());
    return {};
  }
  StoredRun r;
  r.id = id;
  r.name = name;
  r.load = QString::fromStdString(run.load_spec);
  r.model = QString::fromStdString(run.options.model);
  r.gpu = QString::fromStdString(summary.gpu);
  r.config = compactConfig(run.options.policy);
  r.finished = QDateTime::currentDateTime();
  r.headline = headline_values(summary);
  runs_.push_back(std::move(r));
  const bool saved = save(error);
  Q_EMIT changed();
  return saved ? id : QString();
}

bool RunStore::setBaseline(const QString& id) {
  if (!id.isEmpty() && !find(id)) return false;
  for (StoredRun& r : runs_) r.baseline = r.id == id;
  save(nullptr);
  Q_EMIT changed();
  return true;
}

bool RunStore::remove(const QString& id) {
  for (auto it = runs_.begin(); it != runs_.end(); ++it) {
    if (it->id != id) continue;
    runs_.erase(it);
    QFile::remove(sessionPath(id));
    save(nullptr);
    Q_EMIT changed();
    return true;
  }
  return false;
}

bool RunStore::exportRun(const QString& id, const QString& path, QString* error) const {
  auto s = read_session(sessionPath(id).toStdString());
  if (!s) {
    if (error) *error = QString::fromStdString(s.error());
    return false;
  }
  if (auto written = write_session(path.toStdString(), *s); !written) {
    if (error) *error = QString::fromStdString(written.error());
    return false;
  }
  return true;
}

}  // namespace kvscope::ui
