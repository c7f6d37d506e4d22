#pragma once
// Sizes as people write them: "16GiB", "512MiB", "64 MiB", "1.5GB", "4096".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvscope {

// Parses a byte count with an optional unit: B, KiB, MiB, GiB, TiB (powers of 1024) or
// KB, MB, GB, TB (powers of 1000), case-insensitive, K/M/G/T alone meaning the binary unit.
// nullopt for anything else, negative values, or results that do not fit in 64 bits.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// "16 GiB", "1.5 MiB", "512 B": the largest binary unit that keeps the number >= 1.
std::string format_byte_size(std::uint64_t bytes);

}  // namespace kvscope
