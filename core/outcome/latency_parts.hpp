#pragma once
// Where one request's time went (docs/why-requests-miss.md). Every simulated second between a
// request's arrival and its first token lies in exactly one of the TTFT parts, and every second
// between its first token and its finish in exactly one of the decode parts, so
//   TTFT            = sum of ttft_parts()
//   finish - first  = sum of decode_parts()     (TPOT = that / (output tokens - 1))
// up to rounding. A step's time is shared out by what the step model says each piece of work
// costs: a prefill chunk's own part is the step it would be alone; a decode step's own part is
// the step without the other requests' prefill chunks and without migration.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kvscope {

struct latency_parts {
  // Before the first token.
  double arrival_step_s = 0;       // arrived while a step ran: until the next step began
  double wait_kv_memory_s = 0;     // not admitted: no room in the KV cache (or the step preempted)
  double wait_batch_slots_s = 0;   // not admitted: max_num_seqs sequences were running
  double wait_token_budget_s = 0;  // not given a chunk: the step's token budget went to others
  double wait_preempted_s = 0;     // waiting again after a preemption
  double prefill_s = 0;            // its own prefill chunks, each as long as its step would be alone
  double prefill_batched_s = 0;    // the rest of those steps: other work batched with its chunks
  double recompute_s = 0;          // computing again the tokens a preemption dropped
  // After the first token.
  double decode_s = 0;            // its decode steps without others' prefill chunks or migration
  double decode_prefill_s = 0;    // extra from other requests' prefill chunks (and steps they filled)
  double decode_migration_s = 0;  // extra from re-quantizing blocks in its steps
  double decode_preempted_s = 0;  // waiting and recomputing after a preemption

  double ttft_sum() const noexcept {
    return arrival_step_s + wait_kv_memory_s + wait_batch_slots_s + wait_token_budget_s +
           wait_preempted_s + prefill_s + prefill_batched_s + recompute_s;
  }
  double decode_sum() const noexcept {
    return decode_s + decode_prefill_s + decode_migration_s + decode_preempted_s;
  }
  friend bool operator==(const latency_parts&, const latency_parts&) = default;
};

// Why the requests still waiting after a step's admissions were not admitted: all of them for
// the same reason, as admission is first come, first served and stops at the first it cannot take.
enum class wait_cause : std::uint8_t {
  none,          // nobody was left waiting
  kv_memory,     // the head did not fit in the KV cache, or the step preempted (no admissions then)
  batch_slots,   // max_num_seqs sequences were running
  token_budget,  // the step's max_num_batched_tokens were taken
};
inline constexpr std::size_t wait_cause_count = 4;

// How one step's time is shared among the requests decoding in it: what the step would take
// with only the decode tokens, what the prefill chunks added, and what migration added.
struct decode_shares {
  double own_s = 0;
  double prefill_s = 0;
  double migration_s = 0;
  double seconds() const noexcept { return own_s + prefill_s + migration_s; }
};

// One part as a column of the per-request CSV and the request table: its key, a line of meaning,
// and where it lives.
struct latency_part_column {
  std::string_view key;
  std::string_view meaning;
  double latency_parts::*member;
  bool before_first_token;
};

inline constexpr std::array<latency_part_column, 12> latency_part_columns{{
    {"arrival_step_s", "Arrived while a step ran: time until the next step began", &latency_parts::arrival_step_s, true},
    {"wait_kv_memory_s", "Not admitted: the KV cache had no room (or the step preempted)", &latency_parts::wait_kv_memory_s, true},
    {"wait_batch_slots_s", "Not admitted: max_num_seqs sequences were running", &latency_parts::wait_batch_slots_s, true},
    {"wait_token_budget_s", "Not given a chunk: the step's max_num_batched_tokens went to others", &latency_parts::wait_token_budget_s, true},
    {"wait_preempted_s", "Waiting again after a preemption, before the first token", &latency_parts::wait_preempted_s, true},
    {"prefill_s", "Its own prefill chunks, each as long as its step would be alone", &latency_parts::prefill_s, true},
    {"prefill_batched_s", "The rest of its prefill steps: other work batched with its chunks", &latency_parts::prefill_batched_s, true},
    {"recompute_s", "Computing again the prompt tokens a preemption dropped", &latency_parts::recompute_s, true},
    {"decode_s", "Its decode steps as long as they would be without prefill chunks or migration", &latency_parts::decode_s, false},
    {"decode_prefill_s", "Extra in its decode time from other requests' prefill chunks", &latency_parts::decode_prefill_s, false},
    {"decode_migration_s", "Extra in its decode time from re-quantizing blocks", &latency_parts::decode_migration_s, false},
    {"decode_preempted_s", "Waiting and recomputing after a preemption, after the first token", &latency_parts::decode_preempted_s, false},
}};

}  // namespace kvscope
