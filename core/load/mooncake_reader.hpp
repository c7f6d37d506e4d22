#pragma once
// Mooncake traces (FAST'25): JSON lines {"timestamp": ms, "input_length", "output_length",
// "hash_ids": [...]}, one hash id per 512 prompt tokens, the last block partial.
#include <memory>

#include "load/trace_reader.hpp"

namespace kvscope {

class mooncake_reader final : public trace_reader {
 public:
  static constexpr std::uint32_t block_tokens = 512;

  mooncake_reader(std::unique_ptr<line_reader> lines, const read_options& options);
  ~mooncake_reader() override;

  std::string_view format_name() const noexcept override { return "mooncake"; }

 private:
  row_status parse_row(std::string_view line, request& out, std::string& why) override;
  std::string output_field() const override { return "output_length"; }
  std::string time_field() const override { return "timestamp"; }

  struct json_state;
  std::unique_ptr<json_state> json_;
};

}  // namespace kvscope
