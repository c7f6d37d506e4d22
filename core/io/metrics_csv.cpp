#include "io/metrics_csv.hpp"

#include <array>
#include <cmath>
#include <charconv>

namespace kvscope {
namespace {

void append_double(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}

void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}

}  // namespace

std::string metrics_csv_header() {
  std::string h =
      "step,sim_time_s,kv_cache_usage_perc,pressure_ewma,level,bytes_fp16,bytes_q8,bytes_fp8,"
      "bytes_q4,scale_bytes,free_bytes,num_requests_running,num_requests_waiting,"
      "num_preemptions_total,level_transitions_total,prefix_cache_hits,prefix_cache_queries,"
      "decode_tokens,prefill_tokens,requests_finished_total";
  for (const char* kind : {"quant_rel_rmse_", "attention_rel_l2_"}) {
    for (precision p : all_precisions) {
      h += ',';
      h += kind;
      h += tag(p);
    }
  }
  return h;
}

std::string metrics_csv_row(const step_metrics& m) {
  std::string r;
  r.reserve(256);
  append_uint(r, m.step);
  r += ',';
  append_double(r, m.sim_time_s);
  r += ',';
  append_double(r, m.kv_cache_usage_perc);
  r += ',';
  append_double(r, m.pressure_ewma);
  r += ',';
  r += tag(m.level);
  for (auto b : m.bytes_per_level) {
    r += ',';
    append_uint(r, b);
  }
  for (std::uint64_t v : {m.scale_bytes, m.free_bytes, std::uint64_t{m.num_requests_running},
                          std::uint64_t{m.num_requests_waiting}, m.num_preemptions_total,
                          m.level_transitions_total, m.prefix_cache_hits, m.prefix_cache_queries,
                          std::uint64_t{m.decode_tokens}, std::uint64_t{m.prefill_tokens},
                          m.requests_finished_total}) {
    r += ',';
    append_uint(r, v);
  }
  for (const auto* values : {&m.quant_rel_rmse, &m.attention_rel_l2}) {
    for (double v : *values) {
      r += ',';
      append_double(r, v);
    }
  }
  return r;
}

expected<void, std::string> metrics_csv_writer::open(const std::filesystem::path& path) {
  error_ = {};
  if (auto opened = file_.open(path); !opened) return opened;
  row_ = metrics_csv_header();
  row_ += '\n';
  error_ = file_.write(row_);
  return {};
}

void metrics_csv_writer::write(const step_metrics& m) {
  if (!error_) return;
  row_ = metrics_csv_row(m);
  row_ += '\n';
  error_ = file_.write(row_);
}

expected<void, std::string> metrics_csv_writer::finish() {
  if (!error_) {
    file_.discard();
    return error_;
  }
  return file_.commit();
}

}  // namespace kvscope
