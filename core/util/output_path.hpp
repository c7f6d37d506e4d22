#pragma once
// Where a file kvscope writes may go, decided before writing: atomic_file (atomic_write.hpp)
// applies these rules when it opens, and the CLI checks them before any long run so that a bad
// output path costs nothing and can never replace something that is not a plain file.
#include <filesystem>
#include <string>

#include "util/expected.hpp"

namespace kvscope {

// The file a write to `path` lands in: `path` itself, or, when it is a symbolic link, the file at
// the end of the chain of links (which need not exist yet). Writing there keeps the link a link.
// Fails on a chain longer than 40 links (a loop); the message names `path`.
expected<std::filesystem::path, std::string> resolve_output_path(const std::filesystem::path& path);

// Whether a write to `path` can replace what is there: absent or a regular file (after links)
// is fine; a directory, FIFO, device or socket is refused, as "PATH: is a FIFO, not a regular
// file". Other errors (a folder on the way missing, no permission) are left to the writer.
expected<void, std::string> check_replaceable(const std::filesystem::path& path);

// Everything an atomic write to `path` needs, checked up front: the path resolves, its folder
// exists and is writable, and it is absent or a regular file (or a link to one). Errors name
// `path`: "out/m.csv: folder 'out' does not exist", "m.csv: is a directory, not a regular file".
expected<void, std::string> check_output_path(const std::filesystem::path& path);

// True when `a` and `b` are one existing file (same device and inode, links followed), whatever
// their names: an output that is an input under another name, a link or a hard link.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) noexcept;

}  // namespace kvscope
