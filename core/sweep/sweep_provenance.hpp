#pragma once
// What a sweep CSV was made from, in a sidecar beside it (`sweep.csv.provenance.json`, like
// tune's): kvscope's version, the load (its spec and SHA-256) and the base run's options, so that
// `sweep --resume` and `sweep-merge` never put rows of different runs in one file. The CSV itself
// stays plain CSV (pareto, the GUI and any CSV reader read it as before).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "run/run_description.hpp"
#include "sweep/sweep_space.hpp"
#include "util/expected.hpp"

namespace kvscope {

// "sweep.csv" → "sweep.csv.provenance.json".
std::filesystem::path sweep_provenance_path(const std::filesystem::path& csv);

// The sidecar's text (JSON) for a sweep of `plan` over `base`: every option of the option table
// as one would type it, but those every config sets (their base value never ran). `checksum` is
// load_checksum(base) (sweep/sweep_run.hpp); `typed` the options as typed, recorded only.
std::string sweep_provenance_json(const run_description& base, const sweep_plan& plan, std::string_view checksum,
                                  const std::vector<std::string>& typed);

// The sidecar's text with a "reuse" object: how many of the `configs` with figures repeated the
// run of an earlier config and reused it (sweep/run_reuse.hpp), and why that is exact. Not
// compared by compare_provenance: a resumed sweep or a shard counts its own rows.
std::string sweep_provenance_with_reuse(std::string_view provenance, std::size_t repeats, std::size_t configs);
// The one-line note: "12 of 30 configs reused an identical run: ...".
std::string reuse_note(std::size_t repeats, std::size_t configs);
// The sidecar's text without its "reuse" object (merged shards: each counted its own rows).
std::string sweep_provenance_without_reuse(std::string_view provenance);

// One way two sweeps differ: what ("budget", "load", "kvscope version") and its two values.
struct provenance_difference {
  std::string what, first, second;
};

// How the sweep recorded in `first` differs from `second` (sidecar texts; `*_source` name them
// in parse errors): version, load checksum and format, and every base option both record (an
// option one of them sweeps is not compared). Empty when rows of one may join the other.
expected<std::vector<provenance_difference>, std::string> compare_provenance(std::string_view first,
                                                                             std::string_view first_source,
                                                                             std::string_view second,
                                                                             std::string_view second_source);

// "budget: FIRST made with 16MiB, SECOND with 1GiB; load: ..." — the differences in one line.
std::string describe_differences(const std::vector<provenance_difference>& differences, std::string_view first,
                                 std::string_view second);

}  // namespace kvscope
