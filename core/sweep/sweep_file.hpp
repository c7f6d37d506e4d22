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
  // `provenance`: the sidecar's text (sweep/sweep_provenance.hpp), written beside the CSV by
  // write() and checked by resume(); "" for a file that is only text() (the GUI's run).
  sweep_file(std::filesystem::path path, std::string header, std::string provenance = {});

  // Takes the rows an earlier run of the same sweep wrote to the file (nothing when there is no
  // file). Refused, naming the file: no sidecar (a file of a kvscope before sidecars: its rows
  // cannot be checked), a sidecar of another load, base option or version (each difference
  // named), another header, a row of a config this process does not take, a row whose config
  // cells are not the plan's (another sweep), or a metric cell that is not a number or "nan"
  // (file:line:column; empty cells only in a row of a config that cannot run, as written).
  expected<void, std::string> resume(const sweep_plan& plan, const sweep_shard& shard);

  bool has(std::size_t index) const { return rows_.count(index) != 0; }
  std::size_t size() const noexcept { return rows_.size(); }
  void add(std::size_t index, std::string row) { rows_[index] = std::move(row); }
  // Writes the header and every row so far, in index order, atomically; then the sidecar, so a
  // crash between the two leaves a CSV whose sidecar is missing or stale, which resume refuses.
  expected<void, std::string> write() const;
  // What write() writes.
  std::string text() const;

  const std::filesystem::path& path() const noexcept { return path_; }
  const std::map<std::size_t, std::string>& rows() const noexcept { return rows_; }
  // The sidecar's text from now on (a sweep's closing facts: sweep_provenance_with_reuse).
  void set_provenance(std::string provenance) { provenance_ = std::move(provenance); }

 private:
  std::filesystem::path path_;
  std::string header_;
  std::string provenance_;
  std::map<std::size_t, std::string> rows_;
};

struct merged_sweep {
  std::string csv;
  std::string provenance;  // the shards' sidecar text; "" when none had one
  std::string warning;     // "" unless the files had no sidecars (made before kvscope wrote them)
};

// The one-process file from shard files (or any sweep CSVs of the same sweep): same header and
// same provenance (load, base options, version: each difference named with both files) in every
// file, rows sorted by index, a row given twice only if equal. Indices must run from 0 without
// gaps (a missing shard is reported with the first missing index). Files without a sidecar are
// merged only if none has one (with a warning: they cannot be checked); a mix is refused.
expected<merged_sweep, std::string> merge_sweep_files(const std::vector<std::filesystem::path>& paths);

}  // namespace kvscope
