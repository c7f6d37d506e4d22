// Bodies of the document targets: a session file, a Hugging Face config.json, a vLLM benchmark
// result, a tour script, a per-request CSV and a sweep CSV (both read by the GUI's views). Each input gives a value or an error naming the source, never an
// exception or a crash; what parses is used as the program would use it.
#include <string>

#include "fuzz_bodies.hpp"
#include "io/session_file.hpp"
#include "load/load_error.hpp"
#include "load/vllm_bench.hpp"
#include "model/model_config.hpp"
#include "outcome/requests_csv.hpp"
#include "sweep/sweep_data.hpp"
#include "tour/tour_script.hpp"

namespace kvscope::fuzz {
namespace {

using detail::broken;

template <class T>
void check_error_names_source(const expected<T, std::string>& r, const char* what) {
  if (!r && r.error().rfind("fuzz", 0) != 0) broken(what);
}

// A session that reads writes back to text that reads back to the same text.
void read_session_text(std::string_view text) {
  const auto s = session_from_json(text, "fuzz");
  check_error_names_source(s, "session error does not name the source");
  if (!s) return;
  const std::string written = session_to_json(*s);
  const auto back = session_from_json(written, "written");
  if (!back) broken("written session does not read back");
  if (session_to_json(*back) != written) broken("written session reads back different");
}

// A config that parses has counts that fit (the functions' precondition).
void read_model_config_text(std::string_view text) {
  const auto c = parse_model_config(text, "fuzz.json");
  check_error_names_source(c, "model config error does not name the source");
  if (!c) return;
  (void)parameter_count(*c);
  (void)active_parameter_count(*c);
  (void)weight_bytes(*c);
  (void)kv_bytes_per_token(*c);
}

// A result that parses becomes a load (as `--load bench:FILE` makes it) that reads to the end.
void read_vllm_bench_text(std::string_view text) {
  const auto r = parse_vllm_bench(text, "fuzz");
  check_error_names_source(r, "bench error does not name the source");
  if (!r) return;
  try {
    auto load = make_vllm_bench_load(*r, 1);
    request req;
    while (load->next(req)) {
    }
  } catch (const load_error&) {
    // refusing a load whose lengths cannot be is a valid answer
  }
}

void read_tour_text(std::string_view text) {
  check_error_names_source(parse_tour_script(text, "fuzz"), "tour error does not name the source");
}

// Rows that read write back to text that reads back to the same rows and the same text.
void read_requests_csv_text(std::string_view text) {
  const auto rows = parse_requests_csv(text, "fuzz");
  check_error_names_source(rows, "requests CSV error does not name the source");
  if (!rows) return;
  const auto written = [](const std::vector<request_record>& records) {
    std::string out(requests_csv_header());
    out += '\n';
    for (const request_record& r : records) append_requests_csv_row(out, r);
    return out;
  };
  const std::string once = written(*rows);
  const auto back = parse_requests_csv(once, "written");
  if (!back) broken("written requests CSV does not read back");
  if (back->size() != rows->size()) broken("written requests CSV reads back another row count");
  if (written(*back) != once) broken("written requests CSV reads back different");
}

// A sweep that reads has a metric per metric column in every row, and each column it names.
void read_sweep_csv_text(std::string_view text) {
  const auto data = parse_sweep_data(text, "fuzz");
  check_error_names_source(data, "sweep CSV error does not name the source");
  if (!data) return;
  for (const sweep_data_row& row : data->rows) {
    if (row.metrics.size() != data->metric_columns.size()) broken("sweep row without a value per metric");
  }
  for (std::size_t m = 0; m < data->metric_columns.size(); ++m) {
    if (data->metric(data->metric_columns[m]) != m) broken("sweep metric column not found by its name");
    if (data->column(m).size() != data->rows.size()) broken("sweep column without a value per row");
  }
}

}  // namespace

void run_document(document d, const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  switch (d) {
    case document::session: return read_session_text(text);
    case document::model_config: return read_model_config_text(text);
    case document::vllm_bench: return read_vllm_bench_text(text);
    case document::tour: return read_tour_text(text);
    case document::requests_csv: return read_requests_csv_text(text);
    case document::sweep_csv: return read_sweep_csv_text(text);
  }
}

}  // namespace kvscope::fuzz
