#pragma once
// Checks of a subcommand's output paths against its inputs and each other, made before any
// work starts: a bad output exits 2 at once instead of after a long run, and no output may
// replace one of the command's inputs (a trace, a policy, a session) or another output.
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class Validator;
}

namespace kvscope::cli {

// The check of every output-file option (->check(output_file_name())): an empty name, which
// check_outputs cannot tell from an option not given, is refused while parsing (exit 2):
// "--out: an empty file name names no file".
CLI::Validator output_file_name();

struct named_path {
  std::string option;  // "--metrics", as the user wrote it
  std::string path;    // empty: not given, skipped
};

// The first problem, as a message for print_error, or nullopt when every output can be written:
// - an output check_output_path refuses (missing folder, a directory, FIFO, device, ...);
// - an output that is the same file as an input (by device and inode, so links and other
//   spellings count too) or names the same file as another output;
// - "-": callers leave out of `outputs` those that accept it as stdout; for the others it would
//   be a file named "-".
std::optional<std::string> check_outputs(const std::vector<named_path>& outputs,
                                         const std::vector<named_path>& inputs);

}  // namespace kvscope::cli
