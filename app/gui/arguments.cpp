#include "arguments.hpp"

#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "io/policy_file.hpp"
#include "io/session_file.hpp"
#include "io/trace_checksum.hpp"
#include "load/load_error.hpp"
#include "load/request_source.hpp"
#include "run/option_table.hpp"
#include "common/run_setup.hpp"

namespace kvscope::app {

kvscope::run_description run_from_arguments(const QCommandLineParser& p, bool scan_rows) {
  using namespace kvscope;
  const auto value = [&p](const char* name) { return p.value(QString::fromLatin1(name)).toStdString(); };
  const auto is_set = [&p](const char* name) { return p.isSet(QString::fromLatin1(name)); };
  run_description s;
  if (is_set("session")) {
    std::vector<std::string> others = {"load", "format", "skip-bad-rows", "policy"};
    for (const auto& spec : option_table()) {
      if (spec.places & in_gui) others.emplace_back(spec.flag);
    }
    for (const auto& other : others) {
      if (is_set(other.c_str())) {
        throw usage_error{"--session replays the session's own load and options; drop --" + other};
      }
    }
    auto read = read_session(value("session"));
    if (!read) throw usage_error{read.error()};
    s = std::move(*read);
    // As kvscope-cli replay without --force; the window's File menu can still replay it anyway.
    const auto check = check_trace_checksum(s, value("session"));
    if (check.result == trace_check_result::differs) {
      throw usage_error{check.message + " (File > Open session... asks whether to replay it anyway)"};
    }
  } else if (is_set("load")) {
    s.load_spec = value("load");  // kvscope-cli's defaults for the rest
    if (s.load_spec.empty()) throw usage_error{"--load: empty"};
  } else {
    s = ui::demoSession();
  }
  if (is_set("format")) {
    if (!is_set("load")) throw usage_error{"--format needs --load"};
    const auto f = parse_load_format(value("format"));
    if (!f) throw usage_error{"--format: unknown format '" + value("format") + "' (auto, azure, burstgpt, mooncake, vidur, native)"};
    s.format = *f;
  }
  if (is_set("skip-bad-rows")) s.skip_bad_rows = true;
  if (is_set("policy")) {
    auto config = read_policy_config(value("policy"));
    if (!config) throw usage_error{config.error()};
    s.options.policy = *config;
  }
  // The engine options of the option table shown in the GUI (the seed reseeds the load too).
  for (const auto& spec : option_table()) {
    if (!(spec.places & in_gui) || spec.flag == "seed") continue;
    const std::string name(spec.flag);
    if (!is_set(name.c_str())) continue;
    auto parsed = parse_option_text(spec, value(name.c_str()));
    if (!parsed) throw usage_error{parsed.error()};
    spec.set(s.options, *parsed);
  }
  if (is_set("seed")) {
    bool ok = false;
    const qulonglong seed = p.value(QStringLiteral("seed")).toULongLong(&ok);
    if (!ok) throw usage_error{"--seed: '" + value("seed") + "' is not a whole number"};
    s = ui::reseeded(std::move(s), seed);
  }
  if (const auto reason = validate(s.options)) throw usage_error{*reason};
  try {
    auto source = open_run_load(s);
    if (scan_rows && !ui::isGenerated(s)) for_each_request(*source, [](const request&) {});
  } catch (const load_error& e) {
    throw usage_error{e.what(), e.kind() == load_error_kind::io_failure ? exit_runtime_failure : exit_bad_input};
  }
  return s;
}

std::vector<char*> renameSessionArgument(int argc, char** argv, std::vector<std::string>& renamed) {
  const auto isSession = [](const char* a) {
    return std::strcmp(a, "--session") == 0 || std::strncmp(a, "--session=", 10) == 0;
  };
  std::vector<char*> args(argv, argv + argc);
  for (char* a : args) {
    if (isSession(a)) renamed.push_back(std::string("--session-file") + (a + 9));
  }
  for (std::size_t i = 0, r = 0; i < args.size(); ++i) {
    if (isSession(args[i])) args[i] = renamed[r++].data();
  }
  args.push_back(nullptr);
  return args;
}

void declareOptions(QCommandLineParser& parser) {
  parser.setApplicationDescription(QStringLiteral(
      "See, explain and tune the memory of an LLM KV cache. Without arguments it runs the built-in "
      "demo (model tiny, 16MiB, payload data, a generated load that climbs through q8 and q4 and "
      "falls back within a minute). With --load, the other engine options default as in "
      "kvscope-cli simulate (llama3-8b, 16GiB, accounting)."));
  parser.addHelpOption();
  parser.addVersionOption();
  const auto option = [&parser](const char* name, const char* help, const char* valueName = nullptr,
                                const char* fallback = nullptr) {
    QCommandLineOption o(QString::fromLatin1(name), QString::fromUtf8(help));
    if (valueName) o.setValueName(QString::fromLatin1(valueName));
    if (fallback) o.setDefaultValue(QString::fromLatin1(fallback));
    parser.addOption(o);
  };
  option("load", "The load: a trace file (Azure, BurstGPT, Mooncake, Vidur, kvscope JSONL) or a "
                 "'gen:...' spec (docs/load-formats.md).", "SPEC");
  option("format", "Trace format (auto, azure, burstgpt, mooncake, vidur, native).", "F");
  option("skip-bad-rows", "Skip malformed rows of the trace (and say how many) instead of refusing it.");
  option("policy", "Start with this policy config (JSON or TOML); the policy options below override its fields.", "FILE");
  for (const auto& spec : kvscope::option_table()) {
    if (!(spec.places & kvscope::in_gui)) continue;
    const std::string name(spec.flag);
    const std::string help = spec.flag == "seed" ? std::string("Seed of the generated load and of the synthetic K/V data.")
                                                 : kvscope::option_help(spec);
    option(name.c_str(), help.c_str(), spec.kind == kvscope::option_kind::choice ? "WORD" : "VALUE");
  }
  parser.addOption(QCommandLineOption({QStringLiteral("session"), QStringLiteral("session-file")},
                                      QStringLiteral("Replay a saved session (its load, options and commands) "
                                                     "to its saved step."),
                                      QStringLiteral("FILE")));
  option("speed", "Engine steps per second (0 = as fast as possible; by default 60 until the "
                  "load's length is known, then the whole load in about three minutes, 60 to 1000; "
                  "a replayed session 0).", "N");
  option("screenshot", "Save a PNG of the window to FILE and exit.", "FILE");
  option("after-ms", "With --screenshot: run this long first (default 3000).", "N", "3000");
  option("what-if", "Compare the run with this policy config (JSON/TOML): the whole load runs "
                    "again with it in the background, drawn dashed; the live run is unchanged.", "FILE");
  option("sweep", "Open a sweep CSV (kvscope-cli sweep) in the sweep view.", "FILE");
  option("dark", "Use the dark theme.");
  option("raise", "Bring a dock to the front of its tabs: latency, why (latency, why requests "
                  "missed), memory, runs, sweep, stats, blockTable, load, compare.", "DOCK");
  option("by-sequence", "Colour the block map by sequence.");
  option("select-sequence", "With --screenshot: select the sequence holding the most blocks just before the shot.");
  option("jump-to", "Once the run's moments are found, run to the first of them of this kind and pause "
                    "there: peak (pressure), busiest (minute), level (change), preemption.", "WHAT");
  option("tour", "Open a guided tour of the KV cache, step by step (Right/Space, Left, Home): "
                 "the built-in one, or the tour script given as an argument (docs/tour.md).");
  option("export-pdf", "With --tour: write the tour as slides, one PDF page per step, and exit.", "FILE");
  option("tour-step", "With --tour: open at step N (1 = the first).", "N");
}

}  // namespace kvscope::app
