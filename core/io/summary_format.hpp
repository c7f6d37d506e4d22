#pragma once
// A run's summary for people and programs: JSON keyed by the summary metric table
// (run/metric_table.hpp), an aligned text for terminals, and the figures a policy export's
// provenance records.
#include <string>
#include <utility>
#include <vector>

#include "run/run_summary.hpp"

namespace kvscope {

// One JSON object in the metric table's order and nesting; NaN (never measured) is null.
std::string summary_json(const run_summary& s);
// A few aligned lines for people.
std::string summary_text(const run_summary& s);
// (name, value) pairs for a policy export's provenance.
std::vector<std::pair<std::string, double>> summary_metrics(const run_summary& s);

}  // namespace kvscope
