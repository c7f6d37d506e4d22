#pragma once
// Core value types carried by Qt signals (QSignalSpy and queued connections need them known).
#include <QMetaType>

#include <memory>
#include <vector>

#include "run/snapshot.hpp"
#include "policy/policy_config.hpp"

namespace kvscope::ui {
using SnapshotPtr = std::shared_ptr<const kvscope::engine_snapshot>;
// Steps the GUI has not seen yet, oldest first, each exactly once (the bridge deduplicates).
using MetricsPtr = std::shared_ptr<const std::vector<kvscope::step_metrics>>;
}

Q_DECLARE_METATYPE(kvscope::policy_config)
Q_DECLARE_METATYPE(kvscope::ui::SnapshotPtr)
Q_DECLARE_METATYPE(kvscope::ui::MetricsPtr)
