#include "io/metrics_csv.hpp"

#include "run/metric_table.hpp"

namespace kvscope {
std::string metrics_csv_header() {
  std::string h;
  for (const auto& column : step_metric_table()) {
    if (!h.empty()) h += ',';
    h += column.info.key;
  }
  return h;
}

std::string metrics_csv_row(const step_metrics& m) {
  std::string r;
  r.reserve(256);
  for (const auto& column : step_metric_table()) {
    if (!r.empty()) r += ',';
    column.append(r, m);
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
