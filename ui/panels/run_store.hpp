#pragma once
// The runs kept between sessions: every finished run as a session file (core's session_file, so
// it re-opens and replays) in the app data folder, and a small index (index.json) with what the
// run list shows: name, load, model, GPU, config, headline metrics, and which run is the
// baseline. Index and session files are written atomically.
#include <QDateTime>
#include <QObject>
#include <QString>
#include <QVector>

#include <vector>

#include "run/run_description.hpp"
#include "run/run_summary.hpp"

namespace kvscope::ui {

// A config in a few words: "q8 0.8 · q4 0.95 · h 0.05 · α 0.2" (and the levels when not fp16…q4).
QString compactConfig(const policy_config& c);

struct StoredRun {
  QString id;  // from the session's text: the same run is stored once
  QString name;
  QString load, model, gpu, config;
  QDateTime finished;
  std::vector<double> headline;  // summary_compare's headline_values
  bool baseline = false;
};

class RunStore : public QObject {
  Q_OBJECT
 public:
  // `directory` "" means AppDataLocation/runs. Reads the index there (a missing one is empty).
  explicit RunStore(QString directory = {}, QObject* parent = nullptr);
  static QString defaultDirectory();
  QString directory() const { return dir_; }
  // Oldest first.
  const QVector<StoredRun>& runs() const { return runs_; }
  const StoredRun* find(const QString& id) const;
  const StoredRun* baseline() const;
  // Stores a finished run; a run already stored keeps its entry. Returns its id ("" and
  // `error` when a file cannot be written).
  QString add(const run_description& run, const run_summary& summary, const QString& name, QString* error = nullptr);
  // Makes `id` the baseline ("" clears it). False for an unknown id.
  bool setBaseline(const QString& id);
  bool remove(const QString& id);
  QString sessionPath(const QString& id) const;
  // Writes the run's session file to `path` (kvscope --session / replay re-open it).
  bool exportRun(const QString& id, const QString& path, QString* error) const;

 Q_SIGNALS:
  void changed();

 private:
  void load();
  bool save(QString* error);

  QString dir_;
  QVector<StoredRun> runs_;
};

}  // namespace kvscope::ui
