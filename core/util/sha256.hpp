#pragma once
// SHA-256 (FIPS 180-4), for checksums that name an input exactly (a tuned config's provenance
// records the trace it was tuned on). Not for secrets: no constant-time guarantees.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "util/expected.hpp"

namespace kvscope {

class sha256 {
 public:
  sha256();
  void update(std::string_view bytes);
  // The digest as 64 lowercase hex digits; the object is spent afterwards.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);

  std::array<std::uint32_t, 8> h_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes
};

std::string sha256_hex(std::string_view bytes);
// The digest of a file's bytes; "FILE: cannot open" or "FILE: read error" otherwise.
expected<std::string, std::string> sha256_file(const std::filesystem::path& path);

}  // namespace kvscope
