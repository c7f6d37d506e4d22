#include "outcome/requests_csv.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "load/csv.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

// Shortest round-trip text; NaN (undefined) writes nothing, leaving the cell empty.
void append_number(std::string& out, double v) {
  if (!std::isnan(v)) append_shortest(out, v);
}

void append_number(std::string& out, std::uint64_t v) { append_shortest(out, v); }

}  // namespace

std::string_view requests_csv_header_before_parts() noexcept {
  return "request_id,arrival_s,first_scheduled_s,first_token_s,finish_s,prompt_tokens,"
         "output_tokens,cached_prompt_tokens,preemptions,recomputed_tokens,outcome,reason,ttft_s,"
         "tpot_s,e2e_s,queue_s";
}

std::string_view requests_csv_header() noexcept {
  static const std::string header = [] {
    std::string h(requests_csv_header_before_parts());
    h += ",client_wait_s,alone_ttft_s,alone_tpot_s";
    for (const auto& c : latency_part_columns) {
      h += ',';
      h += c.key;
    }
    return h;
  }();
  return header;
}

void append_requests_csv_row(std::string& out, const request_record& r) {
  const auto cell = [&out](auto value) {
    out += ',';
    append_number(out, value);
  };
  append_number(out, r.request_id);
  cell(r.arrival_s);
  cell(r.first_scheduled_s);
  cell(r.first_token_s);
  cell(r.finish_s);
  cell(std::uint64_t{r.prompt_tokens});
  cell(std::uint64_t{r.output_tokens});
  cell(std::uint64_t{r.cached_prompt_tokens});
  cell(std::uint64_t{r.preemptions});
  cell(r.recomputed_tokens);
  out += ',';
  out += to_string(r.outcome);
  out += ',';
  append_csv_cell(out, r.reason);
  cell(r.ttft_s());
  cell(r.tpot_s());
  cell(r.e2e_s());
  cell(r.queue_s());
  cell(r.client_wait_s);
  cell(r.alone_ttft_s);
  cell(r.alone_tpot_s);
  for (const auto& c : latency_part_columns) cell(r.parts.*c.member);
  out += '\n';
}

}  // namespace kvscope
