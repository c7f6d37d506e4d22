#pragma once
// What engine_options name, resolved once: the model's config, the GPU and the roofline step
// time, the KV budget (`auto` as vLLM sizes it), the longest request the model takes and the
// SLOs. The engine and validate() share it, so an option that cannot work is refused before
// any step with the same message.
#include <cstdint>
#include <optional>
#include <string>

#include "model/gpu_spec.hpp"
#include "model/kv_budget.hpp"
#include "model/model_config.hpp"
#include "model/roofline.hpp"
#include "outcome/slo.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct engine_options;

enum class timing_kind : std::uint8_t {
  automatic,  // roofline when a GPU is given, else linear
  linear,     // base + per-token costs (step_time_model)
  roofline,   // overhead + max(compute, memory) on the GPU (model/roofline.hpp)
};

struct engine_setup {
  model_config model;
  std::optional<gpu_spec> gpu;
  std::optional<roofline> timing;   // set when the step time is the roofline's
  std::uint64_t budget_bytes = 0;   // the options' budget, or what `auto` chose
  std::optional<kv_budget> budget_auto;  // how `auto` chose it
  std::uint32_t max_model_len = 0;  // 0: no limit (the model's config does not say)
  slo_spec slo;
};

// Resolves the options; the error says which option and why ("--gpu: unknown GPU 'h900' ...").
expected<engine_setup, std::string> resolve_setup(const engine_options& options);

}  // namespace kvscope
