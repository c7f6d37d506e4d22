#pragma once
// The parameters of a generated load and their one-line spelling for the CLI (docs/load-formats.md):
//   gen:rate=4,burstiness=0.5,prompt=lognormal:1000:0.8,output=uniform:200:0.5,duration=600,seed=7
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "load/length_dist.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct generator_spec {
  double rate = 1.0;        // mean arrivals per second
  double burstiness = 1.0;  // gamma shape k of the gaps: 1 is Poisson, CV of gaps = 1/sqrt(k)
  length_dist prompt{length_dist::kind::fixed, 512, 0};
  length_dist output{length_dist::kind::fixed, 128, 0};
  std::optional<double> duration_s;      // stop before this time ...
  std::optional<std::uint64_t> count;    // ... or after this many requests, whichever comes first
  std::uint64_t seed = 0;
  std::uint32_t prefix_groups = 0;   // 0: no shared prefixes
  std::uint32_t prefix_tokens = 0;   // shared prefix length of every group
  double prefix_zipf = 1.0;          // popularity of group i ∝ i^-prefix_zipf
  std::uint32_t block_size = 16;     // tokens per prefix hash (the engine's block size)
  // A closed loop: this many clients, each sending its next request the moment its previous one
  // completes (all requests are ready at 0; the engine keeps this many in flight). Needs count,
  // excludes rate, burstiness and duration.
  std::optional<std::uint32_t> concurrency;

  friend bool operator==(const generator_spec&, const generator_spec&) = default;
};

// Parses "gen:key=value,..." (the "gen:" prefix is optional). Unknown or repeated keys and bad
// values are errors naming the key; duration or count (or both) must be given.
expected<generator_spec, std::string> parse_generator_spec(std::string_view text);

// The canonical "gen:..." spelling; parse_generator_spec reads it back to an equal spec.
std::string to_string(const generator_spec& spec);

}  // namespace kvscope
