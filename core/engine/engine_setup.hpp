#pragma once
// engine_options resolved, once: the model's config, the GPU and the roofline step time, the
// KV budget (`auto` as vLLM sizes it), the longest request the model takes and the SLOs.
// resolve_setup is the one check of the options: validate() and the engine share it, so an
// option that cannot work is refused before any step with the same message, and a caller that
// resolved the options hands the setup to the engine instead of having every file read again.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/engine_options.hpp"
#include "memory/paged_cache.hpp"
#include "model/gpu_spec.hpp"
#include "model/kv_budget.hpp"
#include "model/model_config.hpp"
#include "model/roofline.hpp"
#include "outcome/slo.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct engine_setup {
  engine_options options;           // what was resolved (budget_bytes as given: 0 for auto)
  model_config model;
  std::optional<gpu_spec> gpu;
  std::optional<roofline> timing;   // set when the step time is the roofline's
  std::uint64_t budget_bytes = 0;   // the options' budget, or what `auto` chose
  std::optional<kv_budget> budget_auto;  // how `auto` chose it
  std::uint32_t max_model_len = 0;  // 0: no limit (the model's config does not say)
  slo_spec slo;
};

// Resolves and checks the options. The error names the option by its key and says why
// ("gpu: unknown GPU 'h900' ...", "budget auto needs a GPU to size the KV cache on"), never
// by a command-line flag: the GUI shows it too. With `like`, a setup resolved before, its model
// and GPU are taken where the options name the same ones, instead of reading their files again.
expected<engine_setup, std::string> resolve_setup(const engine_options& options, const engine_setup* like = nullptr);

// Why the options cannot make an engine (unknown model, invalid policy, pool too small, ...):
// resolve_setup's error, for callers that need only a yes or no.
std::optional<std::string> validate(const engine_options& options);

// The KV cache the setup asks for: its model's shape, the resolved budget, the paging options.
paged_cache_config cache_config(const engine_setup& setup);

}  // namespace kvscope
