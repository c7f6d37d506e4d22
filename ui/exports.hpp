#pragma once
// The window's file exports, apart from its layout code. Everything is written atomically
// (temporary file in the same directory, then renamed over the target).
#include <QByteArray>
#include <QString>

#include <vector>

#include "engine_bridge.hpp"
#include "meta_types.hpp"

class QCustomPlot;

namespace kvscope::ui {

// A plot as .png (2× resolution) or .pdf, chosen by the extension; false with a message
// naming the file otherwise.
bool exportPlotFile(QCustomPlot* plot, const QString& path, QString* error);

// The window's own record of a run, for feeds without core's session files: what ran, the
// policy now, and the commands — the engine's log (with the step each was applied before) when
// the snapshot carries one, else those the window posted.
struct SessionRecord {
  QString load, model;
  std::uint64_t seed = 0;
  policy_config policy;
  SnapshotPtr latest;
  std::vector<EngineBridge::PostedCommand> posted;
};
QByteArray sessionRecordJson(const SessionRecord& record);

}  // namespace kvscope::ui
