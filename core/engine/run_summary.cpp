#include "engine/run_summary.hpp"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "util/byte_size.hpp"

namespace kvscope {
namespace {

double relative(double error, double reference) {
  return reference > 0 ? std::sqrt(error / reference) : NAN;
}

nlohmann::ordered_json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

run_summary summarize(const engine& e, std::string load, double wall_seconds) {
  const auto& t = e.totals();
  run_summary s;
  s.model = e.options().model;
  s.load = std::move(load);
  s.budget_bytes = e.cache().pool().budget_bytes();
  s.requests_total = t.requests_total;
  s.requests_finished = t.requests_finished;
  s.requests_rejected = t.requests_rejected;
  s.preemptions = t.preemptions;
  s.level_transitions = t.level_transitions;
  s.peak_usage = t.peak_usage;
  s.steps = e.steps_done();
  s.mean_usage = s.steps ? t.usage_sum / static_cast<double>(s.steps) : 0;
  s.sim_seconds = e.sim_time_s();
  s.wall_seconds = wall_seconds;
  s.decode_token_steps = t.decode_token_steps;
  s.decode_token_steps_per_s =
      wall_seconds > 0 ? static_cast<double>(t.decode_token_steps) / wall_seconds : 0;
  s.prefix_cache_hit_rate =
      t.prefix.queries ? static_cast<double>(t.prefix.hits) / static_cast<double>(t.prefix.queries) : 0;
  s.peak_bytes_per_level = t.peak_bytes_per_level;
  s.peak_scale_bytes = t.peak_scale_bytes;
  s.migrated_blocks = t.migrated_blocks;
  s.final_level = e.policy().level();
  for (int l = 0; l < 4; ++l) {
    s.quant_rel_rmse[l] = relative(t.quant_squared_error[l], t.quant_squared_reference[l]);
    s.attention_rel_l2[l] = relative(t.attention_squared_error[l], t.attention_squared_reference[l]);
  }
  return s;
}

std::string summary_json(const run_summary& s) {
  nlohmann::ordered_json j;
  j["model"] = s.model;
  j["load"] = s.load;
  j["budget_bytes"] = s.budget_bytes;
  j["requests_total"] = s.requests_total;
  j["requests_finished"] = s.requests_finished;
  j["requests_rejected"] = s.requests_rejected;
  j["preemptions"] = s.preemptions;
  j["level_transitions"] = s.level_transitions;
  j["peak_usage"] = s.peak_usage;
  j["mean_usage"] = s.mean_usage;
  j["steps"] = s.steps;
  j["sim_seconds"] = s.sim_seconds;
  j["wall_seconds"] = s.wall_seconds;
  j["decode_token_steps"] = s.decode_token_steps;
  j["decode_token_steps_per_s"] = s.decode_token_steps_per_s;
  j["prefix_cache_hit_rate"] = s.prefix_cache_hit_rate;
  j["final_level"] = std::string(tag(s.final_level));
  j["migrated_blocks"] = s.migrated_blocks;
  auto& peak = j["peak_bytes_per_level"];
  for (precision p : all_precisions) peak[std::string(tag(p))] = s.peak_bytes_per_level[ordinal(p)];
  j["peak_scale_bytes"] = s.peak_scale_bytes;
  auto& quality = j["quality"];
  for (precision p : all_precisions) {
    quality[std::string(tag(p))] = {{"quant_rel_rmse", number_or_null(s.quant_rel_rmse[ordinal(p)])},
                                    {"attention_rel_l2", number_or_null(s.attention_rel_l2[ordinal(p)])}};
  }
  return j.dump(2) + "\n";
}

std::string summary_text(const run_summary& s) {
  std::string out;
  char line[256];
  const auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("model %s, budget %s, load %s\n", s.model.c_str(), format_byte_size(s.budget_bytes).c_str(),
      s.load.c_str());
  add("requests        %llu total, %llu finished, %llu rejected\n",
      static_cast<unsigned long long>(s.requests_total),
      static_cast<unsigned long long>(s.requests_finished),
      static_cast<unsigned long long>(s.requests_rejected));
  add("steps           %llu over %.1f s simulated, %.3f s wall\n",
      static_cast<unsigned long long>(s.steps), s.sim_seconds, s.wall_seconds);
  add("decode tokens   %llu (%.0f per wall second)\n",
      static_cast<unsigned long long>(s.decode_token_steps), s.decode_token_steps_per_s);
  add("KV usage        peak %.1f %%, mean %.1f %%\n", 100 * s.peak_usage, 100 * s.mean_usage);
  add("policy          %llu level transitions, final level %s, %llu blocks migrated\n",
      static_cast<unsigned long long>(s.level_transitions), std::string(tag(s.final_level)).c_str(),
      static_cast<unsigned long long>(s.migrated_blocks));
  add("preemptions     %llu\n", static_cast<unsigned long long>(s.preemptions));
  add("prefix cache    %.1f %% hit rate\n", 100 * s.prefix_cache_hit_rate);
  out += "peak bytes      ";
  for (precision p : all_precisions) {
    add("%s %s  ", std::string(tag(p)).c_str(),
        format_byte_size(s.peak_bytes_per_level[ordinal(p)]).c_str());
  }
  add("scales %s\n", format_byte_size(s.peak_scale_bytes).c_str());
  bool any_quality = false;
  for (int l = 0; l < 4; ++l) any_quality = any_quality || std::isfinite(s.quant_rel_rmse[l]);
  if (any_quality) {
    out += "quality         ";
    for (precision p : all_precisions) {
      const int l = ordinal(p);
      if (!std::isfinite(s.quant_rel_rmse[l])) continue;
      add("%s rmse %.4f attn %.4f  ", std::string(tag(p)).c_str(), s.quant_rel_rmse[l],
          s.attention_rel_l2[l]);
    }
    out += "\n";
  }
  return out;
}

std::vector<std::pair<std::string, double>> summary_metrics(const run_summary& s) {
  std::vector<std::pair<std::string, double>> m = {
      {"requests_finished", static_cast<double>(s.requests_finished)},
      {"requests_rejected", static_cast<double>(s.requests_rejected)},
      {"preemptions", static_cast<double>(s.preemptions)},
      {"level_transitions", static_cast<double>(s.level_transitions)},
      {"peak_usage", s.peak_usage},
      {"mean_usage", s.mean_usage},
      {"sim_seconds", s.sim_seconds},
      {"prefix_cache_hit_rate", s.prefix_cache_hit_rate},
  };
  for (precision p : all_precisions) {
    if (std::isfinite(s.quant_rel_rmse[ordinal(p)])) {
      m.emplace_back("quant_rel_rmse_" + std::string(tag(p)), s.quant_rel_rmse[ordinal(p)]);
    }
  }
  return m;
}

}  // namespace kvscope
