#pragma once
// Every metric kvscope reports, declared once: its key, unit, one line of meaning and which way
// is better. The per-step table drives the metrics CSV (its columns, in order); the summary
// table drives the summary JSON (dotted keys nest: "peak_bytes_per_level.fp16"), the figures a
// policy export's provenance records, the GUI's tooltips and the objectives sweeps and Pareto
// fronts name. Keys are vLLM's metric names where vLLM has the same metric.
// To add a metric: a field in step_metrics or run_summary and one entry here.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "engine/step_metrics.hpp"
#include "run/run_summary.hpp"

namespace kvscope {

enum class better_when : std::uint8_t { higher, lower, neither };

struct metric_info {
  std::string_view key;
  std::string_view unit;     // "bytes", "s", "requests", "" for a plain number or fraction
  std::string_view meaning;  // one line
  better_when better = better_when::neither;
};

// A value of a summary metric: a count, a real (NaN where never measured) or a word.
using metric_value = std::variant<std::uint64_t, double, std::string>;

struct step_metric {
  metric_info info;
  // Appends the CSV cell (shortest round-trip doubles, "nan" where unmeasured).
  void (*append)(std::string& out, const step_metrics& m);
};

struct summary_metric {
  metric_info info;
  metric_value (*get)(const run_summary& s);
};

// Columns of the metrics CSV, in order.
std::span<const step_metric> step_metric_table();
// Fields of the summary, in JSON order.
std::span<const summary_metric> summary_metric_table();
// The entry named `key` in either table; nullptr when there is none.
const metric_info* find_metric(std::string_view key);

}  // namespace kvscope
