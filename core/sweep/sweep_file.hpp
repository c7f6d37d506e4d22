#pragma once
// The sweep CSV as it is being filled: rows arrive in any order and the file is always written
// whole, in index order, atomically (util/atomic_write.hpp) — at checkpoints, when a run is
// interrupted and at the end. So the file on disk is always a valid sweep CSV holding the rows
// done so far, which --resume reads back to skip them.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/sweep_space.hpp"
#include "util/expected.hpp"

namespace kvscope {

// Which configs a process takes: those with index mod `count` == `part` (--shard K/N).
struct sweep_shard {
  std::size_t part = 0;
  std::size_t count = 1;
  bool takes(std::size_t index) const noexcept { return index % count == part; }
};

// Parses "K/N" with 0 <= K < N; errors name --shard.
expected<sweep_shard, std::string> parse_shard(std::string_view text);

class sweep_file {
 public:
  sweep_file(std::filesystem::path path, std::string header);

  // Takes the rows an earlier run of the same sweep wrote to the file (nothing when there is no
  // file). Refused, naming the file and line: another header, a row of a config this process
  // does not take, or a row whose config cells are not the plan's (another sweep).
  expected<void, std::string> resume(const sweep_plan& plan, const sweep_shard& shard);

  bool has(std::size_t index) const { return rows_.count(index) != 0; }
  std::size_t size() const noexcept { return rows_.size(); }
  void add(std::size_t index, std::string row) { rows_[index] = std::move(row); }
  // Writes the header and every row so far, in index order, atomically.
  expected<void, std::string> write() const;
  // What write() writes.
  std::string text() const;

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
  std::string header_;
  std::map<std::size_t, std::string> rows_;
};

// The one-process file from shard files (or any sweep CSVs of the same sweep): same header in
// every file, rows sorted by index, a row given twice only if equal. Indices must run from 0
// without gaps (a missing shard is reported with the first missing index).
expected<std::string, std::string> merge_sweep_files(const std::vector<std::filesystem::path>& paths);

}  // namespace kvscope
