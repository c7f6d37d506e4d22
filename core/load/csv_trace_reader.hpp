#pragma once
// The CSV traces of docs/load-formats.md, columns found by header name:
//   azure     TIMESTAMP,ContextTokens,GeneratedTokens  (civil timestamps, 2023 and 2024 forms)
//   burstgpt  Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type  (seconds;
//             0 response tokens = failed request, skipped and counted; newer files add columns)
//   vidur     arrived_at,num_prefill_tokens,num_decode_tokens  (seconds)
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/trace_reader.hpp"

namespace kvscope {

enum class csv_layout { azure, burstgpt, vidur };

// The layout whose required columns the header line has, or nullopt.
std::optional<csv_layout> detect_csv_layout(std::string_view header_line);

class csv_trace_reader final : public trace_reader {
 public:
  // Reads and checks the header; throws load_error when the file is empty or a needed column is
  // missing.
  csv_trace_reader(std::unique_ptr<line_reader> lines, csv_layout layout,
                   const read_options& options);

  std::string_view format_name() const noexcept override;

 private:
  row_status parse_row(std::string_view line, request& out, std::string& why) override;
  std::string output_field() const override { return names_[output_col_]; }
  std::string time_field() const override { return names_[time_col_]; }
  bool count_field(std::size_t column, std::uint32_t& out, std::string& why) const;

  csv_layout layout_;
  std::vector<std::string> names_;  // header spelling, for messages
  std::size_t time_col_ = 0, prompt_col_ = 0, output_col_ = 0;
  std::optional<std::size_t> model_col_, log_type_col_;
  std::vector<std::string_view> fields_;
  std::optional<std::int64_t> base_ns_;  // first timestamp seen, so times stay small and exact
};

}  // namespace kvscope
