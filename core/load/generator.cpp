#include "load/generator.hpp"

#include <algorithm>

namespace kvscope {
namespace {

// Stream numbers of the independent random sequences of one seed.
enum : std::uint64_t { arrival_stream = 1, prompt_stream = 2, output_stream = 3, group_stream = 4 };

// Hash of block `index` of group `group`'s shared prefix, chained with the block before it.
std::uint64_t block_hash(std::uint64_t parent, std::uint64_t seed, std::uint64_t group,
                         std::uint64_t index) {
  const std::uint64_t content = splitmix64(splitmix64(seed ^ 0x6b76736370726678ULL) + group);
  return splitmix64(parent ^ splitmix64(content + index));
}

}  // namespace

generator_source::generator_source(const generator_spec& spec)
    : spec_(spec),
      arrivals_(spec.seed, arrival_stream),
      prompts_(spec.seed, prompt_stream),
      outputs_(spec.seed, output_stream),
      groups_(spec.seed, group_stream),
      prompt_len_(spec.prompt),
      output_len_(spec.output) {
  if (spec_.prefix_groups > 0) group_of_.emplace(spec_.prefix_groups, spec_.prefix_zipf);
}

bool generator_source::next(request& out) {
  if (done_) return false;
  const std::uint64_t n = counters_.requests;
  // Without duration=, a load ends where arrivals must (request.hpp), not at an endless time.
  if ((spec_.count && n >= *spec_.count) || next_time_ >= spec_.duration_s.value_or(max_arrival_s)) {
    done_ = true;
    return false;
  }
  out.id = n;
  out.arrival_s = next_time_;
  out.prompt_tokens = prompt_len_(prompts_);
  out.output_tokens = output_len_(outputs_);
  out.label.clear();
  out.prefix_hashes.clear();
  out.prefix_block_size = 0;
  if (group_of_) {
    const std::uint64_t group = (*group_of_)(groups_) - 1;
    const std::uint32_t shared = std::min(spec_.prefix_tokens, out.prompt_tokens);
    const std::uint32_t blocks = shared / spec_.block_size;
    std::uint64_t h = 0;
    for (std::uint32_t i = 0; i < blocks; ++i) {
      h = block_hash(h, spec_.seed, group, i);
      out.prefix_hashes.push_back(h);
    }
    if (blocks > 0) out.prefix_block_size = spec_.block_size;
  }
  // Gap to the next arrival; mean 1/rate whatever k. A closed loop's requests are all ready at
  // 0: its clients, not the clock, pace them.
  if (!spec_.concurrency) {
    const double k = spec_.burstiness;
    next_time_ += arrivals_.gamma(k) / (k * spec_.rate);
  }
  ++counters_.rows;
  ++counters_.requests;
  return true;
}

double generator_source::progress() const noexcept {
  if (done_) return 1.0;
  double p = 0;
  if (spec_.count) p = static_cast<double>(counters_.requests) / static_cast<double>(*spec_.count);
  if (spec_.duration_s) p = std::max(p, next_time_ / *spec_.duration_s);
  return std::clamp(p, 0.0, 1.0);
}

}  // namespace kvscope
