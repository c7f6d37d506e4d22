#include "run/option_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "load/resampled_arrivals.hpp"
#include "model/builtin_models.hpp"
#include "model/gpu_spec.hpp"
#include "outcome/slo.hpp"
#include "util/byte_size.hpp"
#include "util/json_fields.hpp"  // names_json_file

namespace kvscope {
namespace {

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto name : builtin_model_names()) names.emplace_back(name);
  return names;
}
std::vector<std::string> payload_names() { return {"accounting", "data"}; }
std::vector<std::string> timing_names() { return {"auto", "linear", "roofline"}; }
std::vector<std::string> vllm_engine_names() { return {"v1", "v0"}; }
std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  for (const auto name : builtin_gpu_names()) names.emplace_back(name);
  return names;
}
// A built-in's name is looked up here; a file is read once, where the options are resolved
// (engine/engine_setup.hpp), rather than again at every option applied.
std::string check_model(std::string_view name) {
  if (detail::names_json_file(name)) return {};
  const auto m = builtin_model(name);
  return m ? std::string() : m.error();
}
std::string check_gpu(std::string_view name) {
  if (name.empty() || detail::names_json_file(name)) return {};
  const auto g = builtin_gpu(name);
  return g ? std::string() : g.error();
}
std::string check_slo(std::string_view text) {
  if (text.empty()) return {};
  const auto slo = parse_slo(text);
  if (slo) return {};
  // parse_slo names the option itself: keep only its reason.
  const auto& why = slo.error();
  return why.rfind("slo: ", 0) == 0 ? why.substr(5) : why;
}
std::string check_arrivals(std::string_view text) {
  const auto process = parse_arrival_process(text);
  return process ? std::string() : process.error();
}
const char* timing_name(timing_kind t) {
  return t == timing_kind::linear ? "linear" : t == timing_kind::roofline ? "roofline" : "auto";
}
std::string family_word(std::string_view text) {  // "sinks+recent", read as sinks_recent
  const auto f = parse_policy_family(text);
  return std::string(f ? family_name(*f) : text);
}
std::vector<std::string> q4_format_names() { return {"q4", "q4o"}; }
std::vector<std::string> level_names() {
  std::vector<std::string> names;
  for (precision p : all_precisions) names.emplace_back(tag(p));
  return names;
}

// Accessors for one engine_options member: the table's get/set pairs, without a lambda each.
#define KV_COUNT(member)                                                                       \
  [](const engine_options& o) -> option_value { return std::uint64_t(o.member); },             \
      [](engine_options& o, const option_value& v) {                                          \
        o.member = static_cast<decltype(o.member)>(std::get<std::uint64_t>(v));                \
      }
#define KV_REAL(member)                                                                        \
  [](const engine_options& o) -> option_value { return double(o.member); },                    \
      [](engine_options& o, const option_value& v) {                                          \
        o.member = static_cast<decltype(o.member)>(std::get<double>(v));                       \
      }
#define KV_LEVEL(member)                                                                       \
  [](const engine_options& o) -> option_value { return std::string(tag(o.member)); },          \
      [](engine_options& o, const option_value& v) {                                          \
        o.member = *parse_precision(std::get<std::string>(v));                                 \
      }

constexpr double unbounded = 0;  // as `max` of a count: no upper limit

const std::vector<option_spec>& table() {
  static const std::vector<option_spec> t = {
      {"model", "model", option_kind::text, "", 0, 0, 1,
       "Model: a built-in or a Hugging Face config.json", in_simulate | in_bench | in_gui | in_session,
       false, model_names, [](const engine_options& o) -> option_value { return o.model; },
       [](engine_options& o, const option_value& v) { o.model = std::get<std::string>(v); },
       check_model},
      {"budget", "budget_bytes", option_kind::byte_size, "bytes", 0, unbounded, 1,
       "KV cache budget: 16GiB, 512MiB, bytes, or auto (as vLLM sizes it on --gpu; 0 in a session)",
       in_simulate | in_bench | in_gui | in_session, false, nullptr, KV_COUNT(budget_bytes), nullptr,
       true},
      {"block-size", "block_size", option_kind::count, "tokens", 1, 1024, 1, "Tokens per block",
       in_simulate | in_gui | in_session, false, nullptr, KV_COUNT(block_size)},
      {"tail-tokens", "tail_tokens", option_kind::count, "tokens", 0, 1 << 24, 1,
       "Hot fp16 tail per sequence", in_simulate | in_gui | in_session, false, nullptr,
       KV_COUNT(tail_tokens)},
      {"migration-batch", "migration_batch", option_kind::count, "blocks", 0, 1 << 24, 1,
       "Cold blocks re-quantized per step at most", in_simulate | in_gui | in_session, false,
       nullptr, KV_COUNT(migration_batch)},
      {"max-tokens", "max_tokens", option_kind::count, "tokens", 0, 1u << 31, 1,
       "Sliding window per sequence (0 = off)", in_simulate | in_session, false, nullptr,
       KV_COUNT(max_tokens)},
      {"payload", "payload", option_kind::choice, "", 0, 0, 1,
       "accounting: tables and bytes only (any model size); data: real K/V bytes, quantized and "
       "measured",
       in_simulate | in_bench | in_gui | in_session, false, payload_names,
       [](const engine_options& o) -> option_value {
         return std::string(o.payload == payload_mode::data ? "data" : "accounting");
       },
       [](engine_options& o, const option_value& v) {
         o.payload = std::get<std::string>(v) == "data" ? payload_mode::data : payload_mode::accounting;
       }},
      // New in the table: recorded only when set, so default runs' files stay as they were.
      {"q4-format", "q4_format", option_kind::choice, "", 0, 0, 1,
       "How the q4 level stores its blocks: q4 (4-bit codes, 5 bits a value), or q4o, which keeps "
       "each block's largest key channels per layer and kv head apart at int8 (5.15 bits a value at "
       "head_dim 128 with 4 channels, about a third of q4's attention error on synthetic keys; "
       "docs/quantization.md)",
       in_simulate | in_gui | in_session, false, q4_format_names,
       [](const engine_options& o) -> option_value { return std::string(tag(o.q4_storage)); },
       [](engine_options& o, const option_value& v) {
         o.q4_storage = *parse_q4_format(std::get<std::string>(v));
       },
       nullptr, false, nullptr, true},
      {"q4o-channels", "q4o_channels", option_kind::count, "channels", 0, q4o_max_channels, 1,
       "q4o: key channels kept at int8 per block, layer and kv head (0 stores what q4 stores)",
       in_simulate | in_gui | in_session, false, nullptr, KV_COUNT(q4o_channels), nullptr, false, nullptr, true},
      {"prefix-caching", "prefix_caching", option_kind::flag, "", 0, 0, 1,
       "Disable automatic prefix caching", in_simulate | in_session, true, nullptr,
       [](const engine_options& o) -> option_value { return o.prefix_caching; },
       [](engine_options& o, const option_value& v) { o.prefix_caching = std::get<bool>(v); }},
      {"max-num-seqs", "max_num_seqs", option_kind::count, "sequences", 1, 1 << 20, 1,
       "Running sequences at most", in_simulate | in_session, false, nullptr,
       KV_COUNT(scheduler.max_num_seqs)},
      {"max-num-batched-tokens", "max_num_batched_tokens", option_kind::count, "tokens", 1,
       1 << 24, 1, "Tokens per step at most (chunked prefill)", in_simulate | in_session, false,
       nullptr, KV_COUNT(scheduler.max_num_batched_tokens)},
      {"num-scheduler-steps", "num_scheduler_steps", option_kind::count, "steps", 1, 1024, 1,
       "Multi-step scheduling as vLLM 0.6's --num-scheduler-steps: decodes scheduled once for this many "
       "steps, no admission in between, their tokens streamed together at the end (1 = off)",
       in_simulate | in_session, false, nullptr, KV_COUNT(scheduler.num_scheduler_steps)},
      {"chunked-prefill", "chunked_prefill", option_kind::flag, "", 0, 0, 1,
       "Disable chunked prefill, as vLLM V0's default scheduler below 32K of context: whole prompts "
       "in steps of their own, decodes only in steps that admit none (max-num-batched-tokens must "
       "hold max-model-len)",
       in_simulate | in_session, true, nullptr,
       [](const engine_options& o) -> option_value { return o.scheduler.chunked_prefill; },
       [](engine_options& o, const option_value& v) { o.scheduler.chunked_prefill = std::get<bool>(v); },
       nullptr, false, nullptr, true},
      {"watermark", "watermark", option_kind::real, "", 0, 0.99, 1,
       "Fraction of frames kept free when admitting", in_simulate | in_session, false, nullptr,
       KV_REAL(scheduler.watermark)},
      {"step-base-ms", "step_base_s", option_kind::real, "ms", 0, 1e6, 1e-3,
       "Step-time model: fixed cost per step", in_simulate | in_session, false, nullptr,
       KV_REAL(timing.base_s)},
      {"step-prefill-us", "step_prefill_token_s", option_kind::real, "us", 0, 1e9, 1e-6,
       "Step-time model: cost per prompt token", in_simulate | in_session, false, nullptr,
       KV_REAL(timing.per_prefill_token_s)},
      {"step-decode-us", "step_decode_token_s", option_kind::real, "us", 0, 1e9, 1e-6,
       "Step-time model: cost per decoded token", in_simulate | in_session, false, nullptr,
       KV_REAL(timing.per_decode_token_s)},
      {"seed", "seed", option_kind::count, "", 0, unbounded, 1,
       "Seed of the synthetic K/V data and of resampled --arrivals",
       in_simulate | in_gui | in_session, false, nullptr, KV_COUNT(seed)},
      {"quality-every", "quality_every", option_kind::count, "steps", 0, 1 << 30, 1,
       "Data mode: measure quantization and attention error every N steps (0 = never)",
       in_simulate | in_session, false, nullptr, KV_COUNT(quality_every)},
      {"quality-blocks", "quality_blocks", option_kind::count, "blocks", 1, 1 << 20, 1,
       "Data mode: blocks sampled per quality measurement", in_simulate | in_session, false,
       nullptr, KV_COUNT(quality_blocks)},
      {"timing", "timing", option_kind::choice, "", 0, 0, 1,
       "Step-time model: linear (base + per token), roofline (the GPU's FLOPs and bandwidth), "
       "auto (roofline when --gpu is given)",
       in_simulate | in_bench | in_gui | in_session, false, timing_names,
       [](const engine_options& o) -> option_value { return std::string(timing_name(o.timing_model)); },
       [](engine_options& o, const option_value& v) {
         const auto& w = std::get<std::string>(v);
         o.timing_model = w == "linear" ? timing_kind::linear : w == "roofline" ? timing_kind::roofline
                                                                                : timing_kind::automatic;
       }},
      {"vllm-engine", "vllm_engine", option_kind::choice, "", 0, 0, 1,
       "Roofline: the vLLM engine whose host overheads per step to model: v1 (vLLM 0.8 and later) or "
       "v0 (0.5-0.7, scheduling and output processing between forward passes)",
       in_simulate | in_bench | in_session, false, vllm_engine_names,
       [](const engine_options& o) -> option_value {
         return std::string(o.vllm_engine == vllm_engine_kind::v0 ? "v0" : "v1");
       },
       [](engine_options& o, const option_value& v) {
         o.vllm_engine = std::get<std::string>(v) == "v0" ? vllm_engine_kind::v0 : vllm_engine_kind::v1;
       }},
      {"gpu", "gpu", option_kind::text, "", 0, 0, 1,
       "GPU for the roofline timing and --budget auto: a built-in or a JSON file (empty: none)",
       in_simulate | in_bench | in_gui | in_session, false, gpu_names,
       [](const engine_options& o) -> option_value { return o.gpu; },
       [](engine_options& o, const option_value& v) { o.gpu = std::get<std::string>(v); }, check_gpu},
      {"tp", "tensor_parallel", option_kind::count, "GPUs", 1, 64, 1,
       "Tensor parallel: GPUs the weights, KV and compute are split over", in_simulate | in_session,
       false, nullptr, KV_COUNT(tensor_parallel)},
      {"gpu-memory-utilization", "gpu_memory_utilization", option_kind::real, "", 0.05, 1, 1,
       "Share of GPU memory for weights, activations and KV (--budget auto)", in_simulate | in_session,
       false, nullptr, KV_REAL(gpu_memory_utilization)},
      {"max-model-len", "max_model_len", option_kind::count, "tokens", 0, 1u << 31, 1,
       "Longest prompt + output; longer requests are rejected (0 = the model's context length)",
       in_simulate | in_session, false, nullptr, KV_COUNT(max_model_len)},
      {"slo", "slo", option_kind::text, "", 0, 0, 1,
       "SLOs in seconds for goodput: ttft=0.5,tpot=0.05[,e2e=10] (empty: none)",
       in_simulate | in_gui | in_session, false, nullptr,
       [](const engine_options& o) -> option_value { return o.slo; },
       [](engine_options& o, const option_value& v) { o.slo = std::get<std::string>(v); }, check_slo},
      // No key, not in_session: a session keeps it with the load it changes (io/session_file.cpp).
      {"arrivals", "", option_kind::text, "", 0, 0, 1,
       "Arrival times: keep (the load's own), or resampled at the load's mean rate as poisson or "
       "gamma:CV (Gamma gaps of this coefficient of variation: 1 = poisson, 2 burstier, 0.5 "
       "smoother), drawn from --seed; the requests and their order stay",
       in_simulate, false, nullptr, [](const engine_options& o) -> option_value { return o.arrivals; },
       [](engine_options& o, const option_value& v) { o.arrivals = std::get<std::string>(v); }, check_arrivals},
      {"max-concurrency", "max_concurrency", option_kind::count, "requests", 0, 1 << 20, 1,
       "At most this many requests in flight, the rest wait at the client and their latencies "
       "count from when they are sent, as vllm bench serve --max-concurrency (0 = no limit)",
       in_simulate | in_session, false, nullptr, KV_COUNT(max_concurrency)},
      {"max-waiting-requests", "max_waiting_requests", option_kind::count, "requests", 1, 1 << 30, 1,
       "Requests waiting (at the client or for admission) at most: past it the run stops as "
       "overloaded, saying how far the load exceeds what the server finishes (about 210 bytes each)",
       in_simulate | in_session, false, nullptr, KV_COUNT(max_waiting_requests)},
      {"compute-efficiency", "compute_efficiency", option_kind::real, "", 0, 1, 1,
       "Roofline: share of the GPU's peak FLOP/s a step reaches (0 = the GPU's own; --calibration sets it)",
       in_simulate | in_bench | in_session, false, nullptr, KV_REAL(compute_efficiency)},
      {"sustained-share", "sustained_share", option_kind::real, "", 0, 1, 1,
       "Roofline: share of the GPU's benchmark matmul and attention rates it holds through a run, "
       "against the A100's (0 = the GPU's own; docs/timing-model.md)",
       in_simulate | in_bench | in_session, false, nullptr, KV_REAL(sustained_share)},
      {"memory-efficiency", "memory_efficiency", option_kind::real, "", 0, 1, 1,
       "Roofline: share of the GPU's peak bandwidth the weight reads reach (0 = the GPU's own; --calibration sets it)",
       in_simulate | in_bench | in_session, false, nullptr, KV_REAL(memory_efficiency)},
      {"kv-memory-efficiency", "kv_memory_efficiency", option_kind::real, "", 0, 1, 1,
       "Roofline: share of the GPU's peak bandwidth attention's reads of the paged KV cache reach "
       "(0 = the GPU's own)",
       in_simulate | in_bench | in_session, false, nullptr, KV_REAL(kv_memory_efficiency)},
      {"step-overhead-ms", "step_overhead_s", option_kind::real, "ms", 0, 1000, 1e-3,
       "Roofline: fixed time per step (scheduling, launches; 0 = the GPU's own; --calibration sets it)",
       in_simulate | in_bench | in_session, false, nullptr, KV_REAL(step_overhead_s)},
      {"layer-overhead-us", "layer_overhead_s", option_kind::real, "us", 0, 10000, 1e-6,
       "Roofline: time per layer per step beside its matmuls and attention (norms, activations, "
       "launch gaps; 0 = the GPU's own)",
       in_simulate | in_bench | in_session, false, nullptr, KV_REAL(layer_overhead_s)},
      {"sequence-overhead-us", "sequence_overhead_s", option_kind::real, "us", 0, 10000, 1e-6,
       "Roofline: host time per scheduled sequence per step (0 = the GPU's own; --calibration sets it)",
       in_simulate | in_bench | in_session, false, nullptr, KV_REAL(sequence_overhead_s)},
      // The policy's fields: the session file keeps them in its "policy" object, so no key.
      {"q8-threshold", "", option_kind::real, "", 0, 1, 1,
       "Policy: EWMA pressure at which cold blocks go to q8 (overrides --policy/--preset)",
       in_simulate | in_gui, false, nullptr, KV_REAL(policy.q8_threshold)},
      {"q4-threshold", "", option_kind::real, "", 0, 1, 1,
       "Policy: EWMA pressure at which cold blocks go to q4 (at least the q8 threshold)",
       in_simulate | in_gui, false, nullptr, KV_REAL(policy.q4_threshold)},
      {"hysteresis", "", option_kind::real, "", 0, 1, 1,
       "Policy: how far below a threshold the EWMA must fall to step back, so levels do not flap",
       in_simulate | in_gui, false, nullptr, KV_REAL(policy.hysteresis)},
      {"ewma-alpha", "", option_kind::real, "", 0, 1, 1,
       "Policy: weight of the newest pressure in the EWMA (high reacts fast, low smooths bursts)",
       in_simulate | in_gui, false, nullptr, KV_REAL(policy.ewma_alpha)},
      {"min-level", "", option_kind::choice, "", 0, 0, 1, "Policy: least compact level (it starts there)",
       in_simulate | in_gui, false, level_names, KV_LEVEL(policy.min_level)},
      {"max-level", "", option_kind::choice, "", 0, 0, 1,
       "Policy: most compact level (fp8 is reached only by capping here: q4 decisions clamp to it)",
       in_simulate | in_gui, false, level_names, KV_LEVEL(policy.max_level)},
      // kvscope's q3 level, which the reference runtime lacks: 0 (the default) leaves it off.
      {"q3-threshold", "", option_kind::real, "", 0, 1, 1,
       "Policy: EWMA pressure at which cold blocks go to q3, kvscope's 3-bit level (0 = off; at least "
       "the q4 threshold, with --max-level q3; the reference runtime stops at q4)",
       in_simulate | in_gui, false, nullptr,
       [](const engine_options& o) -> option_value { return double(o.policy.q3_threshold.value_or(0.0f)); },
       [](engine_options& o, const option_value& v) {
         const auto threshold = static_cast<float>(std::get<double>(v));
         o.policy.q3_threshold = threshold == 0.0f ? std::nullopt : std::optional<float>(threshold);
       }},
      // Beyond the reference runtime's fields: the family and its parameters (docs/policy.md,
      // "The reference runtime" and "Policy families").
      {"family", "", option_kind::choice, "", 0, 0, 1,
       "Policy family: ewma (the controller), static, age or sinks_recent (docs/policy.md)",
       in_simulate | in_gui, false, policy_family_names,
       [](const engine_options& o) -> option_value { return std::string(family_name(o.policy.family)); },
       [](engine_options& o, const option_value& v) { o.policy.family = *parse_policy_family(std::get<std::string>(v)); },
       nullptr, false, family_word},
      {"fixed-level", "", option_kind::choice, "", 0, 0, 1, "Policy (static, sinks_recent): level of the cold blocks",
       in_simulate | in_gui, false, level_names, KV_LEVEL(policy.fixed_level)},
      {"q8-age-tokens", "", option_kind::count, "tokens", 0, 1u << 31, 1, "Policy (age): blocks this old go to q8",
       in_simulate | in_gui, false, nullptr, KV_COUNT(policy.q8_age_tokens)},
      {"q4-age-tokens", "", option_kind::count, "tokens", 0, 1u << 31, 1, "Policy (age): blocks this old go to q4",
       in_simulate | in_gui, false, nullptr, KV_COUNT(policy.q4_age_tokens)},
      {"q3-age-tokens", "", option_kind::count, "tokens", 0, 1u << 31, 1,
       "Policy (age): blocks this old go to q3, kvscope's 3-bit level (0 = off; at least --q4-age-tokens)",
       in_simulate | in_gui, false, nullptr,
       [](const engine_options& o) -> option_value { return std::uint64_t{o.policy.q3_age_tokens.value_or(0)}; },
       [](engine_options& o, const option_value& v) {
         const auto tokens = static_cast<std::uint32_t>(std::get<std::uint64_t>(v));
         o.policy.q3_age_tokens = tokens == 0 ? std::nullopt : std::optional<std::uint32_t>(tokens);
       }},
      {"sink-tokens", "", option_kind::count, "tokens", 0, 1u << 31, 1, "Policy (sinks_recent): first tokens kept fp16",
       in_simulate | in_gui, false, nullptr, KV_COUNT(policy.sink_tokens)},
      {"recent-tokens", "", option_kind::count, "tokens", 0, 1u << 31, 1, "Policy (sinks_recent): last tokens kept fp16",
       in_simulate | in_gui, false, nullptr, KV_COUNT(policy.recent_tokens)},
  };
  return t;
}

#undef KV_COUNT
#undef KV_REAL
#undef KV_LEVEL

// A value as people type it: whole numbers as integers, a policy float widened to double in the
// float's shortest form (0.8, not 0.800000011921), anything else with 12 significant digits.
std::string shortest(double v) {
  char buf[32];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (std::isfinite(v) && static_cast<double>(static_cast<float>(v)) == v) {
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    if (ec == std::errc{}) return std::string(buf, end);
  }
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

std::string range_text(const option_spec& s) {
  if (s.kind == option_kind::count && s.max == unbounded) return "a whole number >= " + shortest(s.min);
  const std::string what = s.kind == option_kind::count ? "a whole number" : "a number";
  return what + " in [" + shortest(s.min) + ", " + shortest(s.max) + "]";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

std::span<const option_spec> option_table() { return table(); }

std::vector<std::string> differing_flags(const engine_options& options, unsigned place,
                                         const engine_options& defaults) {
  std::vector<std::string> out;
  for (const auto& s : table()) {
    if (!(s.places & place)) continue;
    const option_value value = s.get(options);
    if (value == s.get(defaults)) continue;
    if (s.negated) {
      out.push_back("--no-" + std::string(s.flag));  // a negated flag only turns its option off
    } else {
      out.push_back("--" + std::string(s.flag) + " " + format_option_value(s, value));
    }
  }
  return out;
}

bool option_names_file(const option_spec& spec, std::string_view value) {
  if (spec.kind != option_kind::text || !spec.choices || value.empty()) return false;
  const auto names = spec.choices();
  return std::find(names.begin(), names.end(), value) == names.end();
}

std::vector<std::pair<std::string, std::string>> option_files(const engine_options& options) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& spec : table()) {
    if (spec.kind != option_kind::text) continue;
    const auto value = std::get<std::string>(spec.get(options));
    if (option_names_file(spec, value)) out.emplace_back(spec.key, value);
  }
  return out;
}

bool option_recorded(const option_spec& spec, const engine_options& options) {
  return !spec.omitted_at_default || spec.get(options) != spec.get(engine_options{});
}

const option_spec* find_option(std::string_view name) {
  for (const auto& s : table()) {
    if (s.flag == name || (!s.key.empty() && s.key == name)) return &s;
  }
  return nullptr;
}

std::optional<std::string> check_option_value(const option_spec& s, const option_value& v) {
  const std::string who = "--" + std::string(s.flag);
  switch (s.kind) {
    case option_kind::count:
    case option_kind::byte_size: {
      const auto* n = std::get_if<std::uint64_t>(&v);
      if (!n) return who + ": expected a whole number";
      const double typed = static_cast<double>(*n) / s.typed_scale;
      if (typed < s.min || (s.max != unbounded && typed > s.max)) {
        return who + ": expected " + range_text(s) + ", got " + std::to_string(*n);
      }
      return std::nullopt;
    }
    case option_kind::real: {
      const auto* x = std::get_if<double>(&v);
      if (!x) return who + ": expected a number";
      const double typed = *x / s.typed_scale;
      // NaN fails both comparisons' complement: refuse anything not inside the range.
      if (!(typed >= s.min && typed <= s.max * (1 + 1e-12))) {
        if (s.typed_scale == 1) return who + ": expected " + range_text(s) + ", got " + shortest(typed);
        // The value came in engine units (a session's step_base_s): answer in them, not as typed.
        const std::string unit = s.unit == "ms" ? " s" : "";
        return who + ": expected a number in [" + shortest(s.min * s.typed_scale) + ", " +
               shortest(s.max * s.typed_scale) + "]" + unit + ", got " + shortest(*x) + unit;
      }
      return std::nullopt;
    }
    case option_kind::flag:
      if (!std::holds_alternative<bool>(v)) return who + ": expected true or false";
      return std::nullopt;
    case option_kind::text: {
      const auto* w = std::get_if<std::string>(&v);
      if (!w) return who + ": expected a string";
      if (s.check_text) {
        if (auto why = s.check_text(*w); !why.empty()) return who + ": " + why;
      }
      return std::nullopt;
    }
    case option_kind::choice: {
      const auto* w = std::get_if<std::string>(&v);
      if (!w) return who + ": expected a word";
      const auto words = s.choices();
      if (std::find(words.begin(), words.end(), *w) == words.end()) {
        return who + ": expected one of " + joined(words) + ", got '" + *w + "'";
      }
      return std::nullopt;
    }
  }
  return who + ": unknown kind";
}

expected<option_value, std::string> parse_option_text(const option_spec& s, std::string_view text) {
  const std::string who = "--" + std::string(s.flag);
  const std::string quoted = "'" + std::string(text) + "'";
  option_value v;
  switch (s.kind) {
    case option_kind::count: {
      std::uint64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
        return unexpected{who + ": expected " + range_text(s) + ", got " + quoted};
      }
      v = n;
      break;
    }
    case option_kind::byte_size: {
      if (s.auto_ok && text == "auto") {
        v = std::uint64_t{0};
        return v;
      }
      const auto n = parse_byte_size(text);
      if (!n) return unexpected{who + ": not a size: " + quoted + " (e.g. 16GiB, 512MiB, 1073741824)"};
      if (*n == 0) return unexpected{who + ": must be more than 0 bytes" + (s.auto_ok ? " (or auto)" : "")};
      v = *n;
      break;
    }
    case option_kind::real: {
      double x = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
      if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || !std::isfinite(x)) {
        return unexpected{who + ": expected " + range_text(s) + ", got " + quoted};
      }
      if (!(x >= s.min && x <= s.max)) {
        return unexpected{who + ": expected " + range_text(s) + ", got " + quoted};
      }
      v = x * s.typed_scale;
      return v;
    }
    case option_kind::flag:
      if (text == "true" || text == "1") {
        v = true;
      } else if (text == "false" || text == "0") {
        v = false;
      } else {
        return unexpected{who + ": expected true or false, got " + quoted};
      }
      break;
    case option_kind::choice:
      v = s.canonical ? s.canonical(text) : std::string(text);
      break;
    case option_kind::text:
      v = std::string(text);
      break;
  }
  if (auto why = check_option_value(s, v)) return unexpected{*why};
  return v;
}

std::string format_option_value(const option_spec& s, const option_value& v) {
  if (const auto* n = std::get_if<std::uint64_t>(&v)) {
    if (s.kind == option_kind::byte_size) {
      if (s.auto_ok && *n == 0) return "auto";
      std::string text = format_byte_size(*n);  // "16 GiB"
      std::erase(text, ' ');
      return parse_byte_size(text) == *n ? text : std::to_string(*n);
    }
    return std::to_string(*n);
  }
  if (const auto* x = std::get_if<double>(&v)) return shortest(*x / s.typed_scale);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

std::string option_help(const option_spec& s, const engine_options& defaults) {
  std::string h(s.help);
  if (s.kind == option_kind::flag) return h;
  const auto value = format_option_value(s, s.get(defaults));
  h += " [";
  if (s.kind == option_kind::choice || (s.kind == option_kind::text && s.choices)) {
    h += joined(s.choices());
    if (s.kind == option_kind::text) h += ", or a file";
  } else if (s.kind == option_kind::count || s.kind == option_kind::real) {
    h += shortest(s.min) + "..";
    if (s.max != unbounded || s.kind == option_kind::real) h += shortest(s.max);
  }
  if (!s.unit.empty() && s.kind != option_kind::byte_size) h += " " + std::string(s.unit);
  h += (h.back() == '[' ? "" : ", ") + std::string("default ") + (value.empty() ? "none" : value) + "]";
  return h;
}

expected<void, std::string> set_option(engine_options& options, std::string_view name,
                                       std::string_view text) {
  const auto* spec = find_option(name);
  if (!spec) return unexpected{"unknown option '" + std::string(name) + "'"};
  auto value = parse_option_text(*spec, text);
  if (!value) return unexpected{value.error()};
  spec->set(options, *value);
  return {};
}

}  // namespace kvscope
