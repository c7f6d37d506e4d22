#pragma once
// Per-step metrics kept in bounded memory however long a run lasts: the most recent steps in
// full, plus a decimated view of the whole run whose stride doubles whenever it fills up.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/step_metrics.hpp"

namespace kvscope {

class metrics_history {
 public:
  // Keeps the last `recent_capacity` steps and at most `overview_capacity` overview points.
  // Precondition: both >= 2.
  explicit metrics_history(std::size_t recent_capacity = 8192, std::size_t overview_capacity = 4096);

  void push(const step_metrics& m);
  void clear();

  // Steps pushed since construction or clear().
  std::uint64_t total() const noexcept { return total_; }
  // The last min(total, recent_capacity) steps, oldest first.
  std::vector<step_metrics> recent() const;
  // Every overview_stride()-th step of the whole run (steps 0, s, 2s, ...), oldest first.
  const std::vector<step_metrics>& overview() const noexcept { return overview_; }
  std::uint64_t overview_stride() const noexcept { return stride_; }

 private:
  std::vector<step_metrics> ring_;
  std::size_t ring_head_ = 0;  // next slot to write once the ring is full
  std::size_t recent_capacity_;
  std::vector<step_metrics> overview_;
  std::size_t overview_capacity_;
  std::uint64_t stride_ = 1;
  std::uint64_t total_ = 0;
};

}  // namespace kvscope
