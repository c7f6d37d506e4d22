#pragma once
// A run's summary for people and programs: JSON keyed by the summary metric table
// (run/metric_table.hpp), an aligned text for terminals, and the figures a policy export's
// provenance records.
#include <string>
#include <utility>
#include <vector>

#include "model/calibration.hpp"
#include "run/run_summary.hpp"

namespace kvscope {

// One JSON object in the metric table's order and nesting; NaN (never measured) is null. With
// the calibration the run was timed by, a last field `calibrated_range` gives the headline
// latencies and throughput as ranges from the calibration's errors (model/calibration.hpp);
// without one the object is the metric table's alone.
std::string summary_json(const run_summary& s, const calibration* c = nullptr);
// A few aligned lines for people; with a calibration, one more with those ranges.
std::string summary_text(const run_summary& s, const calibration* c = nullptr);
// The range line summary_text adds ("range (ms)      TTFT p50 13.2-14.8 | ..."), or a line saying
// why the calibration gives none.
std::string calibrated_range_text(const run_summary& s, const calibration& c);
// (name, value) pairs for a policy export's provenance.
std::vector<std::pair<std::string, double>> summary_metrics(const run_summary& s);

}  // namespace kvscope
