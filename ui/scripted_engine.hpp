#pragma once
// STAND-IN until the real engine runner (issue 5) lands: a small, deterministic simulation of a
// paged KV cache whose load follows a scripted pressure curve, so the desktop app has something
// true-to-shape to show. It is not the engine: no real K/V payload, no step-time model, and it
// ends requests early when its script says pressure must fall. What IS real: the policy is the
// core policy_controller, fed the pressure this pool actually has; blocks live in frames split
// by tier exactly as DESIGN.md §3 describes (hot fp16 tail, cold blocks re-quantized to the
// policy's level in bounded batches, shared prefix blocks with refcounts, cached prefixes
// evicted LRU); and the quantization error per level is measured on synthetic keys.
// No Qt here: the headless summary and the tests use it directly.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/snapshot.hpp"
#include "engine/step_metrics.hpp"
#include "policy/policy_controller.hpp"
#include "util/expected.hpp"

namespace kvscope::ui {

struct ScriptedEngineOptions {
  std::uint32_t frames = 1536;
  std::uint32_t block_size = 16;
  std::uint32_t tail_blocks = 8;       // newest blocks of a sequence kept fp16 (the hot tail)
  std::uint32_t migration_batch = 32;  // cold blocks re-quantized per step at most
  std::uint32_t max_running = 96;
  std::uint32_t max_waiting = 48;      // arrivals pause while this many wait
  std::uint32_t prefix_blocks = 6;     // length of each shared system prompt, in blocks
  // One fp16 block of llama3-8b: 16 tokens × 32 layers × 8 kv heads × 128 × (K, V) × 2 bytes.
  std::uint64_t frame_bytes = 2ull << 20;
  double step_seconds = 0.05;  // simulated time per step
  std::uint64_t seed = 1;
  policy_config policy{};
};

class ScriptedEngine {
 public:
  explicit ScriptedEngine(const ScriptedEngineOptions& options = {});
  ~ScriptedEngine();
  ScriptedEngine(const ScriptedEngine&) = delete;
  ScriptedEngine& operator=(const ScriptedEngine&) = delete;

  // The pressure the scripted load aims at, at simulated time t: climbs through both default
  // thresholds (q8 near 15 s, q4 near 28 s), falls back below them by about 50 s, repeats every 80 s.
  static double targetPressure(double sim_seconds);

  // Runs one step: arrivals, script-driven retirements, admission, decode (preempting the
  // youngest sequence when no block is free), the policy's observation, then migration.
  void step();
  // Back to step 0 with the same policy config; a new seed when given.
  void reset(std::optional<std::uint64_t> seed = std::nullopt);
  // The controller's reconfigure (keeps EWMA and counters); the reason when invalid.
  expected<void, std::string> reconfigure(const policy_config& config);

  std::uint64_t step_index() const { return step_; }
  double sim_time() const { return sim_time_; }
  std::uint64_t budget_bytes() const;
  const step_metrics& last_metrics() const { return last_; }
  const ScriptedEngineOptions& options() const { return options_; }
  policy_config policy() const { return policy_->config(); }
  // The current state as a snapshot with new_metrics left empty (the feed fills it).
  engine_snapshot snapshot() const;

 private:
  struct loc {
    std::uint32_t frame = 0;
    std::uint8_t slot = 0;
    friend bool operator==(const loc&, const loc&) = default;
  };
  struct request {
    std::uint64_t id = 0;
    std::uint32_t prompt = 0, output = 0;
    int group = -1;  // shared system prompt, -1 for none
  };
  struct sequence {
    sequence_id id = no_sequence;
    request req;
    std::uint32_t tokens = 0;
    bool prefilled_this_step = true;
    std::vector<loc> table;
  };
  struct prefix {
    std::vector<loc> blocks;  // empty: not in the cache
    std::uint64_t last_use = 0;
  };

  void init();
  std::uint64_t next_random();
  double uniform01();
  std::uint32_t uniform(std::uint32_t lo, std::uint32_t hi);
  request make_request();

  block_slot& slot_at(loc l) { return frames_[l.frame].slots[l.slot]; }
  bool fits(bool new_frame, precision tier) const;
  std::optional<loc> alloc(precision tier);
  std::optional<loc> open_slot(precision tier);
  void occupy(loc l, sequence_id owner, std::int32_t logical, std::uint16_t fill);
  void clear_slot(loc l);
  void count_in_use(precision tier, int delta);
  bool evict_cached_prefix();
  bool admit(const request& r);
  void release(sequence& s, bool keep_prefix_cached);
  void preempt_youngest();
  bool decode(sequence& s);
  void migrate(precision target);
  void relocate(loc from, loc to);
  std::uint64_t payload_bytes() const;
  std::uint64_t scale_bytes() const;
  double pressure() const;
  void record_metrics(std::uint32_t decoded, std::uint32_t prefilled);

  ScriptedEngineOptions options_;
  std::unique_ptr<policy_controller> policy_;
  std::uint64_t rng_ = 0;
  std::vector<frame_info> frames_;
  std::deque<std::uint32_t> free_frames_;
  std::array<std::vector<std::uint32_t>, 4> open_frames_;  // split frames with a free slot
  std::array<std::uint64_t, 4> in_use_blocks_{};
  std::vector<sequence> running_;
  std::deque<request> waiting_;
  std::array<prefix, 3> prefixes_;
  std::uint64_t step_ = 0;
  double sim_time_ = 0, next_arrival_ = 0;
  sequence_id next_sequence_ = 0;
  std::uint64_t next_request_ = 0, preemptions_ = 0, hits_ = 0, queries_ = 0, finished_ = 0;
  block_id next_block_ = 0;
  std::array<double, 4> measured_error_{};
  step_metrics last_;
};

}  // namespace kvscope::ui
