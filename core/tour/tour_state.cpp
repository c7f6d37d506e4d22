#include "tour/tour_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "util/byte_size.hpp"

namespace kvscope {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string percent(double v) { return fixed(100 * v, v < 0.01 ? 2 : 1) + " %"; }

std::optional<double> measured(double v) {
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string level_bytes(const tour_state& s) {
  std::string out;
  for (precision p : all_precisions) {
    const auto b = s.bytes_per_level[ordinal(p)];
    // fp8 is reached only by clamping, q3 only by a policy asking for it: rarely there.
    if (b == 0 && (p == precision::fp8 || p == precision::q3)) continue;
    out += std::string(tag(p)) + " " + format_byte_size(b) + ", ";
  }
  return out + "scales " + format_byte_size(s.scale_bytes) + ", free " + format_byte_size(s.free_bytes);
}

std::string block_costs(const tour_state& s) {
  std::string out = "one block: fp16 " + std::to_string(s.block_payload[0]) + " B";
  for (precision p : {precision::q8, precision::q4}) {
    const auto i = ordinal(p);
    const double share = static_cast<double>(s.block_payload[i] + s.block_scales[i]) /
                         static_cast<double>(s.block_payload[0]);
    out += ", " + std::string(tag(p)) + " " + std::to_string(s.block_payload[i]) + " + " +
           std::to_string(s.block_scales[i]) + " B scales (" + percent(share) + ")";
  }
  return out;
}

std::string errors(const tour_state& s) {
  std::string quant, attention;
  for (precision p : all_precisions) {
    if (p == precision::fp16) continue;
    const auto i = ordinal(p);
    if (s.quant_error[i]) quant += (quant.empty() ? "" : ", ") + std::string(tag(p)) + " " + percent(*s.quant_error[i]);
    if (s.attention_error[i]) {
      attention += (attention.empty() ? "" : ", ") + std::string(tag(p)) + " " + percent(*s.attention_error[i]);
    }
  }
  if (quant.empty()) return "error: no quantized block measured";
  std::string out = "error (relative RMSE of the stored K/V): " + quant;
  if (!attention.empty()) out += "; of the attention output: " + attention;
  return out;
}

std::string refcounts(const tour_state& s, std::span<const block_id> blocks) {
  std::string out = "refcounts";
  bool any = false;
  for (const tour_block& b : s.blocks) {
    if (!blocks.empty() && std::find(blocks.begin(), blocks.end(), b.id) == blocks.end()) continue;
    out += " #" + std::to_string(b.id) + ":" + std::to_string(b.refcount);
    any = true;
  }
  return any ? out : out + ": no block";
}

std::string policy_line(const tour_state& s) {
  const policy_config& p = s.policy;
  return "policy: q8 from EWMA >= " + fixed(p.q8_threshold, 2) + ", q4 from >= " + fixed(p.q4_threshold, 2) +
         ", hysteresis " + fixed(p.hysteresis, 2) + ", EWMA alpha " + fixed(p.ewma_alpha, 2);
}

double prefix_hit_blocks(const tour_state& s) { return static_cast<double>(s.prefix_hit_blocks); }

const std::vector<tour_quantity>& table() {
  static const std::vector<tour_quantity> t = {
      {"engine_step", "engine steps run", [](const tour_state& s) { return double(s.engine_step); }},
      {"free_frames", "frames holding no block", [](const tour_state& s) { return double(s.free_frames); }},
      {"used_frames", "frames holding blocks",
       [](const tour_state& s) { return double(s.frames - s.free_frames - s.scale_frames); }},
      {"running", "sequences running", [](const tour_state& s) { return double(s.running); }},
      {"waiting", "requests waiting", [](const tour_state& s) { return double(s.waiting); }},
      {"finished", "requests finished", [](const tour_state& s) { return double(s.finished); }},
      {"preemptions", "sequences preempted so far", [](const tour_state& s) { return double(s.preemptions); }},
      {"prefix_hits", "prompt blocks found in the prefix cache so far", prefix_hit_blocks},
      {"evictions", "cached blocks evicted so far", [](const tour_state& s) { return double(s.evictions); }},
      {"cached_blocks", "blocks with refcount 0 kept in the LRU", [](const tour_state& s) { return double(s.cached_blocks()); }},
      {"shared_blocks", "blocks with refcount > 1", [](const tour_state& s) { return double(s.shared_blocks()); }},
      {"fp16_blocks", "live blocks stored as fp16", [](const tour_state& s) { return double(s.blocks_at(precision::fp16)); }},
      {"q8_blocks", "live blocks stored as q8", [](const tour_state& s) { return double(s.blocks_at(precision::q8)); }},
      {"fp8_blocks", "live blocks stored as fp8", [](const tour_state& s) { return double(s.blocks_at(precision::fp8)); }},
      {"q4_blocks", "live blocks stored as q4", [](const tour_state& s) { return double(s.blocks_at(precision::q4)); }},
      {"pressure", "bytes referenced by sequences / budget", [](const tour_state& s) { return s.pressure; }},
      {"ewma", "the policy's smoothed pressure", [](const tour_state& s) { return s.ewma; }},
      {"level", "the policy's level (conditions: \"level\": \"q8\")", nullptr},
      {"band", "where the EWMA stands against the thresholds", nullptr},
      {"policy", "the thresholds, hysteresis and alpha", nullptr},
      {"bytes", "bytes per level, scales and free", nullptr},
      {"bytes_per_block", "payload and scales of one block at each level", nullptr},
      {"refcounts", "refcount of each highlighted block (all blocks without a highlight)", nullptr},
      {"error", "measured error of the quantized levels", nullptr},
  };
  return t;
}

}  // namespace

const tour_block* tour_state::block(block_id id) const {
  const auto it = std::lower_bound(blocks.begin(), blocks.end(), id,
                                   [](const tour_block& b, block_id v) { return b.id < v; });
  return it != blocks.end() && it->id == id ? &*it : nullptr;
}

const tour_sequence* tour_state::sequence(sequence_id id) const {
  for (const auto& s : sequences) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

std::uint32_t tour_state::blocks_at(precision p) const {
  return static_cast<std::uint32_t>(std::count_if(blocks.begin(), blocks.end(), [p](const tour_block& b) {
    return !b.cached && b.level == p;
  }));
}

std::uint32_t tour_state::cached_blocks() const {
  return static_cast<std::uint32_t>(std::count_if(blocks.begin(), blocks.end(), [](const tour_block& b) { return b.cached; }));
}

std::uint32_t tour_state::shared_blocks() const {
  return static_cast<std::uint32_t>(
      std::count_if(blocks.begin(), blocks.end(), [](const tour_block& b) { return b.refcount > 1; }));
}

tour_state capture_tour_state(const engine& e, std::span<const std::string> names) {
  tour_state s;
  const pool_view view = e.view_pool();
  const frame_map& map = view.frames;
  const step_metrics& m = e.last_metrics();
  const block_pool& pool = e.cache().pool();
  s.engine_step = e.steps_done();
  s.sim_time_s = e.sim_time_s();
  s.block_size = map.block_size;
  s.frame_bytes = map.frame_bytes;
  s.frames = static_cast<std::uint32_t>(map.frames.size());
  s.free_frames = pool.free_frames();
  s.scale_frames = map.scale_reserved_frames;
  std::map<std::pair<std::uint32_t, std::uint8_t>, block_id> at;
  for (std::uint32_t f = 0; f < map.frames.size(); ++f) {
    const frame_info& frame = map.frames[f];
    for (std::uint8_t slot = 0; slot < frame.slot_count; ++slot) {
      const block_slot& b = frame.blocks[slot];
      if (b.block == no_block || (b.refcount == 0 && !b.cached)) continue;
      s.blocks.push_back({b.block, f, slot, frame.tier, b.refcount, b.fill, b.cached, b.owner, b.logical_index});
      at[{f, slot}] = b.block;
    }
  }
  std::sort(s.blocks.begin(), s.blocks.end(), [](const tour_block& a, const tour_block& b) { return a.id < b.id; });
  for (const sequence_summary& q : view.sequences) {
    tour_sequence t;
    t.id = q.id;
    t.request_id = q.request_id;
    t.request_name = q.request_id < names.size() && !names[q.request_id].empty() ? names[q.request_id]
                                                                                 : std::to_string(q.request_id);
    t.prefill = q.phase == sequence_phase::prefill;
    t.prompt_tokens = q.prompt_tokens;
    t.output_tokens = q.output_tokens;
    t.tokens = q.tokens;
    for (const block_location& b : q.block_table) t.table.push_back(at.at({b.frame, b.slot}));
    s.sequences.push_back(std::move(t));
  }
  s.bytes_per_level = m.bytes_per_level;
  s.scale_bytes = m.scale_bytes;
  s.free_bytes = m.free_bytes;
  s.budget_bytes = pool.budget_bytes();
  for (precision p : all_precisions) {
    s.block_payload[ordinal(p)] = pool.layout(p).payload_bytes;
    s.block_scales[ordinal(p)] = pool.layout(p).scale_bytes;
  }
  s.pressure = m.kv_cache_usage_perc;
  s.ewma = e.policy().ewma();
  s.level = e.policy().level();
  s.policy = e.policy().config();
  s.running = m.num_requests_running;
  s.waiting = m.num_requests_waiting;
  s.finished = e.totals().requests_finished;
  s.preemptions = e.totals().preemptions;
  s.prefix_hit_tokens = e.totals().prefix.hits;
  s.prefix_hit_blocks = s.block_size == 0 ? 0 : s.prefix_hit_tokens / s.block_size;
  s.evictions = e.totals().prefix.evictions;
  s.migrated_blocks = e.totals().migrated_blocks;
  for (std::size_t l = 0; l < kv_level_count; ++l) {
    s.quant_error[l] = measured(m.quant_rel_rmse[l]);
    s.attention_error[l] = measured(m.attention_rel_l2[l]);
  }
  return s;
}

std::string policy_band(const tour_state& s) {
  const double q8 = s.policy.q8_threshold, q4 = s.policy.q4_threshold, h = s.policy.hysteresis;
  const double e = s.ewma;
  if (s.level == precision::q4 && e < q4) return "in the q4 hysteresis band: q4 is held until EWMA < " + fixed(q4 - h, 2);
  if (s.level == precision::q8 && e < q8) return "in the q8 hysteresis band: q8 is held until EWMA < " + fixed(q8 - h, 2);
  if (e >= q4) return "above the q4 threshold (" + fixed(q4, 2) + ")";
  if (e >= q8) return "between the q8 (" + fixed(q8, 2) + ") and q4 (" + fixed(q4, 2) + ") thresholds";
  return "below the q8 threshold (" + fixed(q8, 2) + ")";
}

std::span<const tour_quantity> tour_quantities() { return table(); }

const tour_quantity* find_tour_quantity(std::string_view name) {
  for (const auto& q : table()) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

std::string format_tour_quantity(std::string_view name, const tour_state& s, std::span<const block_id> blocks,
                                 const tour_state* before) {
  if (name.starts_with("new_")) {
    const tour_quantity* q = find_tour_quantity(name.substr(4));
    if (!q || !q->value) return std::string(name);
    const double now = q->value(s), change = before ? now - q->value(*before) : now;
    std::string label(q->name);
    std::replace(label.begin(), label.end(), '_', ' ');
    return label + " " + (change >= 0 ? "+" : "") + fixed(change, q->name == "pressure" || q->name == "ewma" ? 3 : 0) +
           " since the previous step (" + fixed(now, q->name == "pressure" || q->name == "ewma" ? 3 : 0) + " now)";
  }
  if (name == "level") return "level " + std::string(tag(s.level));
  if (name == "band") return "band: " + policy_band(s);
  if (name == "policy") return policy_line(s);
  if (name == "bytes") return "bytes: " + level_bytes(s);
  if (name == "bytes_per_block") return block_costs(s);
  if (name == "refcounts") return refcounts(s, blocks);
  if (name == "error") return errors(s);
  if (name == "pressure") return "pressure " + fixed(s.pressure, 3);
  if (name == "ewma") return "EWMA " + fixed(s.ewma, 3);
  if (name == "free_frames") return "free frames " + std::to_string(s.free_frames) + " of " + std::to_string(s.frames);
  if (name == "prefix_hits") {
    return "prefix hits " + fixed(prefix_hit_blocks(s), 0) + " blocks (" + std::to_string(s.prefix_hit_tokens) + " tokens)";
  }
  const tour_quantity* q = find_tour_quantity(name);
  if (!q || !q->value) return std::string(name);
  std::string label(name);
  std::replace(label.begin(), label.end(), '_', ' ');
  return label + " " + fixed(q->value(s), 0);
}

std::vector<std::string> tour_counters(const tour_state& s, const tour_state* before) {
  // Counts only grow, so the change is never negative.
  const auto counter = [&](const char* label, std::uint64_t tour_state::*count, const char* unit = "") {
    const std::uint64_t now = s.*count, moved = before ? now - before->*count : 0;
    std::string out = label + (" " + std::to_string(now)) + unit;
    return moved == 0 ? out : out + " (+" + std::to_string(moved) + " this step)";
  };
  return {"running " + std::to_string(s.running), "waiting " + std::to_string(s.waiting),
          counter("finished", &tour_state::finished), counter("preemptions", &tour_state::preemptions),
          counter("prefix hits", &tour_state::prefix_hit_blocks, " blocks"),
          counter("evictions", &tour_state::evictions), counter("blocks migrated", &tour_state::migrated_blocks)};
}

}  // namespace kvscope
