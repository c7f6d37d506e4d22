#include "io/metrics_csv.hpp"

#include <unistd.h>

#include <array>
#include <cmath>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <random>

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

metrics_csv_writer::~metrics_csv_writer() {
  if (file_) {
    std::fclose(file_);
    std::error_code ignored;
    std::filesystem::remove(temp_, ignored);
  }
}

expected<void, std::string> metrics_csv_writer::open(const std::filesystem::path& path) {
  path_ = path;
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::random_device entropy;
  temp_ = dir / ("." + path.filename().string() + ".tmp-" + std::to_string(entropy()));
  file_ = std::fopen(temp_.c_str(), "wx");
  if (!file_) return unexpected{path.string() + ": cannot create file: " + std::strerror(errno)};
  const auto header = metrics_csv_header();
  std::fputs(header.c_str(), file_);
  std::fputc('\n', file_);
  return {};
}

void metrics_csv_writer::write(const step_metrics& m) {
  auto row = metrics_csv_row(m);
  row += '\n';
  std::fwrite(row.data(), 1, row.size(), file_);
}

expected<void, std::string> metrics_csv_writer::finish() {
  std::FILE* f = file_;
  file_ = nullptr;
  const bool ok = std::fflush(f) == 0 && !std::ferror(f) && ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed || std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ignored;
    std::filesystem::remove(temp_, ignored);
    return unexpected{path_.string() + ": cannot write file: " + why};
  }
  return {};
}

}  // namespace kvscope
