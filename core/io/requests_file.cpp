#include "io/requests_file.hpp"

#include "outcome/requests_csv.hpp"

namespace kvscope {

expected<void, std::string> requests_csv_writer::open(const std::filesystem::path& path) {
  error_ = {};
  if (auto opened = file_.open(path); !opened) return opened;
  buffer_ = std::string(requests_csv_header());
  buffer_ += '\n';
  error_ = file_.write(buffer_);
  return {};
}

void requests_csv_writer::write(const request_record& r) {
  if (!error_) return;
  buffer_.clear();
  append_requests_csv_row(buffer_, r);
  error_ = file_.write(buffer_);
}

expected<void, std::string> requests_csv_writer::finish() {
  if (!error_) {
    file_.discard();
    return error_;
  }
  return file_.commit();
}

}  // namespace kvscope
