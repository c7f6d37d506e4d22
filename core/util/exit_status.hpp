#pragma once
// The exit statuses of both programs, in one place: 0 success, 1 a runtime failure (an I/O
// error, a run that failed), 2 bad usage or bad input (the message names the file, line, field
// or option).
namespace kvscope {

enum exit_status : int { exit_ok = 0, exit_runtime_failure = 1, exit_bad_input = 2 };

}  // namespace kvscope
