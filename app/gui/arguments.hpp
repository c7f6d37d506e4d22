#pragma once
// The app's command line: every option declared (the load and engine options as the option table
// declares them for the GUI, then the window's own) and the run they ask for, checked before
// anything starts. main.cpp decides what to open with it.
#include <QCommandLineParser>

#include <string>
#include <vector>

#include "run/run_description.hpp"
#include "util/exit_status.hpp"

namespace kvscope::app {

// A message for the user and the exit code that goes with it.
struct usage_error {
  std::string message;
  int code = exit_bad_input;
};

// Every option of the app, declared on `parser`.
void declareOptions(QCommandLineParser& parser);

// The run the arguments ask for, checked as far as possible before anything starts: options,
// the load's spec or header, and (with `scan_rows`) every row of a trace, so a bad row is
// refused now with its file and line rather than stopping the engine later. Throws usage_error.
kvscope::run_description run_from_arguments(const QCommandLineParser& p, bool scan_rows);

// QGuiApplication takes "--session ID" for itself (X11 session management) and removes it:
// ours is renamed to --session-file before Qt sees the arguments. `renamed` keeps the new
// strings alive; the result ends with a null pointer, as argv does.
std::vector<char*> renameSessionArgument(int argc, char** argv, std::vector<std::string>& renamed);

}  // namespace kvscope::app
