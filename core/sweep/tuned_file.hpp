#pragma once
// What `kvscope-cli tune` writes: the best policy config in exactly the format the reference
// runtime loads (docs/policy.md, "The reference runtime"; io/policy_file.hpp, no extra keys),
// and beside it `<config>.provenance.json` with where it came from: the load and its checksum,
// model, GPU, budget, the objective and constraints, the score, every run compared and
// kvscope's version.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "io/policy_file.hpp"
#include "policy/policy_config.hpp"
#include "sweep/tune_search.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct tune_provenance {
  std::string load;           // spec or path
  std::string load_checksum;  // "sha256:..."
  std::string model, gpu;
  std::uint64_t budget_bytes = 0;  // the KV budget of the runs: what `auto` chose, when it did
  bool budget_auto = false;        // the budget was --budget auto (sized as vLLM does on the GPU)
  std::string slo;
  std::string method;  // "grid" or "descent"
  std::size_t engine_runs = 0;  // runs of the engine (a capacity search makes several per config)
  // Runs not made because an earlier run could not differ from them (sweep/run_reuse.hpp); its
  // result was reused. Written only when tune reused (a run with --no-reuse has no such key).
  std::optional<std::size_t> reused_runs;
  std::vector<std::string> fixed_options;  // the base run's options as typed, "--name value"
  double capacity_target = 0;              // with a capacity objective; 0 otherwise
};

// The sidecar's path: "tuned.json" → "tuned.json.provenance.json".
std::filesystem::path provenance_path(const std::filesystem::path& config_path);

// The sidecar's text (JSON).
std::string provenance_json(const tune_problem& problem, const tune_result& result,
                            const tune_provenance& provenance);

// Writes the config (format from the extension: .json or .toml) and its sidecar, atomically;
// with export_check::strict neither when the config reaches q3 (write_policy_config).
expected<void, std::string> write_tuned(const std::filesystem::path& config_path, const policy_config& config,
                                        const tune_problem& problem, const tune_result& result,
                                        const tune_provenance& provenance, export_check check = export_check::note);

}  // namespace kvscope
