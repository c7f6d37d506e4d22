#pragma once
// Two runs side by side: the headline summary metrics (what the GUI's compare panel and run
// list show) as plain numbers, and each one's change from a reference run judged better or
// worse by the metric table's better_when (never a direction written here).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "run/metric_table.hpp"
#include "run/run_summary.hpp"

namespace kvscope {

enum class change_verdict { better, worse, same, neutral };  // neutral: no better side, or unmeasured

struct metric_change {
  const metric_info* info = nullptr;
  double reference = 0;  // NaN where unmeasured
  double other = 0;
  double delta = 0;      // other - reference (NaN when either is)
  double relative = 0;   // delta / |reference|: NaN when either is NaN or the reference is 0
  change_verdict verdict = change_verdict::neutral;
};

// Changes under this share of the reference are read as no change: a what-if's re-run differs
// from the live run in timing details that move latencies by a fraction of a percent.
inline constexpr double material_change_share = 0.01;

// Whether a change is worth a reader's eye: a count that moved, or a real that moved by at least
// material_change_share of its reference (any move from a reference of 0).
bool material(const metric_change& c);

// One line on what `other` changes against the reference, the material changes in headline order
// ("+0.5 % goodput, -8.9 % TTFT p99, +61 % attention error; 2 fewer preemptions"), or that none is
// material. Peak bytes per level are summed into one "peak memory" change.
std::string change_summary(std::span<const metric_change> changes);

// The summary keys a comparison shows, in order: goodput, TTFT and TPOT p50/p99, attention
// error exposure, transitions, preemptions, peak bytes at each level.
std::span<const std::string_view> headline_metric_keys();
// A numeric summary metric as a double (counts converted); nullopt for a word or an unknown key.
std::optional<double> summary_number(const run_summary& s, std::string_view key);
// The words a reader knows a headline metric by ("TTFT p50", "attention error", "peak q8"): the
// compare panel's row titles and change_summary's line say them alike.
std::string headline_name(std::string_view key);
// A relative change as a signed percentage, one decimal under 10 % ("+4.5 %", "-18 %").
std::string percent_change(double relative);
// summary_number of every headline key, in order (NaN where there is none).
std::vector<double> headline_values(const run_summary& s);
// `other` against `reference`, key by key (both in headline_metric_keys() order and size).
std::vector<metric_change> compare_headlines(std::span<const double> reference, std::span<const double> other);
// One metric's verdict: which way `delta` moved it, by `better`.
change_verdict judge(better_when better, double delta);

}  // namespace kvscope
