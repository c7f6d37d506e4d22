#include "tour/tour_text.hpp"

#include <algorithm>
#include <cstdio>

#include "util/byte_size.hpp"

namespace kvscope {
namespace {

template <class... Args>
std::string format(const char* pattern, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, pattern, args...);
  return buf;
}

bool contains(const std::vector<block_id>& v, block_id b) { return std::find(v.begin(), v.end(), b) != v.end(); }

std::string owner_name(const tour_state& s, sequence_id owner) {
  const tour_sequence* q = s.sequence(owner);
  return q ? q->request_name : "-";
}

std::string sequence_table(const tour_state& s, const tour_sequence& q, const tour_focus& focus) {
  const std::uint32_t decoded = q.tokens > q.prompt_tokens ? q.tokens - q.prompt_tokens : 0;
  std::string out = format("  block table of request %s (sequence %d, %s): %u tokens = %u prompt + %u of %u output\n",
                           q.request_name.c_str(), q.id, q.prefill ? "prefill" : "decoding", q.tokens,
                           std::min(q.tokens, q.prompt_tokens), decoded, q.output_tokens);
  out += "    logical  block  frame/slot  level  refcount  tokens  owner\n";
  for (std::size_t i = 0; i < q.table.size(); ++i) {
    const tour_block* b = s.block(q.table[i]);
    if (!b) continue;
    const std::string place = format("%u/%u", b->frame, unsigned{b->slot});
    const std::string tokens = format("%u/%u", unsigned{b->fill}, s.block_size);
    const std::string owner = owner_name(s, b->owner);
    out += format("    %7zu  %5s  %10s  %5s  %8u  %6s  %s%s%s\n", i, ("#" + std::to_string(b->id)).c_str(),
                  place.c_str(), std::string(tag(b->level)).c_str(), unsigned{b->refcount}, tokens.c_str(),
                  owner.c_str(), contains(focus.blocks, b->id) ? std::string(6 - std::min<std::size_t>(owner.size(), 5), ' ').c_str() : "",
                  contains(focus.blocks, b->id) ? "<- highlighted" : "");
  }
  return out;
}

std::string cached_list(const tour_state& s, const tour_focus& focus) {
  std::string list;
  std::size_t count = 0;
  for (const tour_block& b : s.blocks) {
    if (!b.cached) continue;
    ++count;
    list += format("#%u (%u/%u,%s)%s ", b.id, b.frame, unsigned{b.slot}, std::string(tag(b.level)).c_str(),
                   contains(focus.blocks, b.id) ? "*" : "");
  }
  if (count == 0) return "  cached blocks (refcount 0, kept in the LRU for prefix hits): none\n";
  return format("  cached blocks (refcount 0, kept in the LRU for prefix hits): %zu, as #block (frame/slot,level)%s\n",
                count, list.find('*') != std::string::npos ? ", * highlighted" : "") +
         wrap_text(list, 92, "    ");
}

}  // namespace

std::string format_tour_focus(const tour_frame& f) {
  std::string out;
  for (const sequence_id id : f.focus.sequences) {
    out += (out.empty() ? "" : ", ") + std::string("request ") + f.state.sequence(id)->request_name;
  }
  for (const std::string& name : f.focus.absent) out += (out.empty() ? "" : ", ") + std::string("request ") + name + " (not running)";
  if (!f.focus.blocks.empty()) {
    out += out.empty() ? "blocks" : "; blocks";
    for (const block_id b : f.focus.blocks) out += " #" + std::to_string(b);
  }
  return out;
}

std::string wrap_text(std::string_view text, std::size_t width, std::string_view indent) {
  std::string out, line;
  const auto flush = [&] {
    out += std::string(indent) + line + "\n";
    line.clear();
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') {
      flush();
      ++i;
      continue;
    }
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\n') ++end;
    const std::string_view word = text.substr(i, end - i);
    if (!line.empty() && line.size() + 1 + word.size() > width) flush();
    if (!line.empty()) line += ' ';
    line += word;
    i = end;
  }
  if (!line.empty()) flush();
  return out;
}

std::string format_tour_header(const tour_run& run) {
  const tour_script& t = run.script;
  const engine_options& o = t.options;
  const tour_state first = run.frames.empty() ? tour_state{} : run.frames.front().state;
  std::string out = "kvscope tour: " + (t.title.empty() ? t.source : t.title) + " (" + t.source + ", " +
                    std::to_string(t.steps.size()) + " steps)\n";
  out += format("model %s, block size %u tokens, %u frames of %s (budget %s), hot fp16 tail %u tokens, payload %s\n",
                o.model.c_str(), o.block_size, first.frames, format_byte_size(first.frame_bytes).c_str(),
                format_byte_size(first.budget_bytes).c_str(), o.tail_tokens,
                o.payload == payload_mode::data ? "data (real K/V bytes, measured error)" : "accounting");
  out += format_tour_quantity("policy", first) + "\n";
  if (!t.load_spec.empty()) return out + "load: " + t.load_spec + "\n";
  for (const request& r : t.requests) {
    out += format("request %s: arrives at %.3f s, %u prompt tokens, %u output tokens", request_name(r).c_str(),
                  r.arrival_s, r.prompt_tokens, r.output_tokens);
    if (!r.prefix_hashes.empty()) {
      out += format(", its first %zu prompt blocks named", r.prefix_hashes.size());
      for (const auto h : r.prefix_hashes) out += " " + std::to_string(h);
    }
    out += "\n";
  }
  return out;
}

std::string format_tour_step(const tour_run& run, std::size_t index) {
  const tour_frame& f = run.frames[index];
  const tour_step& step = run.script.steps[index];
  const tour_state& s = f.state;
  std::string out = format("\n== Step %zu of %zu: %s ==\n", index + 1, run.frames.size(), step.title.c_str());
  out += format("engine step %llu, simulated time %.3f s\n\n", static_cast<unsigned long long>(s.engine_step),
                s.sim_time_s);
  out += wrap_text(step.narration, 96) + "\n";
  for (const std::string& n : f.numbers) out += "  * " + n + "\n";
  if (!f.numbers.empty()) out += "\n";
  out += format("  pool: %u frames, %u free, %u in use, %u reserved for quantization scales\n", s.frames,
                s.free_frames, s.frames - s.free_frames - s.scale_frames, s.scale_frames);
  out += "  " + format_tour_quantity("bytes", s) + "\n";
  out += format("  policy: pressure %.3f, EWMA %.3f, level %s, %s\n", s.pressure, s.ewma,
                std::string(tag(s.level)).c_str(), policy_band(s).c_str());
  std::string counters;
  for (const std::string& c : tour_counters(s, index > 0 ? &run.frames[index - 1].state : nullptr)) {
    counters += (counters.empty() ? "" : ", ") + c;
  }
  out += "  counters: " + counters + "\n";
  if (s.quant_error[ordinal(precision::q8)] || s.quant_error[ordinal(precision::q4)]) {
    out += "  " + format_tour_quantity("error", s) + "\n";
  }
  for (const tour_sequence& q : s.sequences) out += sequence_table(s, q, f.focus);
  if (s.sequences.empty()) out += "  no sequence is running\n";
  out += cached_list(s, f.focus);
  if (const std::string focus = format_tour_focus(f); !focus.empty()) out += "  highlighted: " + focus + "\n";
  return out;
}

std::string format_tour_text(const tour_run& run) {
  std::string out = format_tour_header(run);
  for (std::size_t i = 0; i < run.frames.size(); ++i) out += format_tour_step(run, i);
  return out;
}

}  // namespace kvscope
