// The CLI refuses bad input files and unsafe output paths with exit 2 before any work starts,
// and leaves its inputs untouched.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

TEST(CliInputs, PolicyNumberOutOfRangeExitsTwoNamingTheField) {
  temp_dir dir;
  const auto json = dir.file("p.json");
  const auto toml = dir.file("p.toml");
  write_text(json, "{\"q8_threshold\": 1e400}\n");
  write_text(toml, "q8_threshold = 1e400\n");
  for (const auto& [path, line] : {std::pair{json, ":1"}, std::pair{toml, ":1"}}) {
    const auto v = run_process({cli_path(), "validate", path});
    EXPECT_EQ(v.exit_code, 2) << v.err;
    EXPECT_EQ(v.err, path + line + ": field 'q8_threshold': number out of range\n");
    const auto s = run_process({cli_path(), "simulate", "--load", small_load, "--model", "tiny",
                                "--budget", "4MiB", "--policy", path});
    EXPECT_EQ(s.exit_code, 2) << s.err;
    EXPECT_EQ(s.err, "kvscope-cli: " + path + line + ": field 'q8_threshold': number out of range\n");
    EXPECT_EQ(s.out, "");
  }
}

// A trace, a policy and a FIFO in a fresh folder; simulate/record/replay runs against them.
class CliOutputs : public ::testing::Test {
 protected:
  CliOutputs() {
    trace = dir.file("trace.csv");
    write_text(trace, read_text(data_path("vidur_sample.csv")));
    trace_bytes = read_text(trace);
    policy = dir.file("p.json");
    write_text(policy, "{\"q8_threshold\": 0.7}\n");
    fifo = dir.file("fifo");
    EXPECT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    std::filesystem::create_symlink(trace, dir.file("trace-link.csv"));
  }

  process_result simulate(std::vector<std::string> extra) {
    std::vector<std::string> argv{cli_path(), "simulate", "--load",   trace, "--model",
                                  "tiny",     "--budget", "4MiB", "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv);
  }

  // Exit 2 with `message`, nothing on stdout, and no file but the setup's in the folder.
  void expect_refused(const process_result& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "kvscope-cli: " + message + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(read_text(trace), trace_bytes);
    EXPECT_EQ(read_text(policy), "{\"q8_threshold\": 0.7}\n");
    int entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
    EXPECT_EQ(entries, 4) << "an output was written before the refusal";
  }

  temp_dir dir;
  std::string trace, trace_bytes, policy, fifo;
};

TEST_F(CliOutputs, SimulateRefusesAnOutputThatIsAnInput) {
  expect_refused(simulate({"--metrics", trace}),
                 "--metrics " + trace + " is the same file as the input --load " + trace +
                     ": refusing to overwrite an input");
  const auto link = dir.file("trace-link.csv");
  expect_refused(simulate({"--summary-json", link}),
                 "--summary-json " + link + " is the same file as the input --load " + trace +
                     ": refusing to overwrite an input");
  expect_refused(simulate({"--session", policy, "--policy", policy}),
                 "--session " + policy + " is the same file as the input --policy " + policy +
                     ": refusing to overwrite an input");
}

TEST_F(CliOutputs, SimulateRefusesUnwritableOutputsBeforeRunning) {
  const auto session = dir.file("s.json");
  // The session would have been written before the run, and the FIFO opened (blocking) by it.
  expect_refused(simulate({"--session", session, "--metrics", fifo}),
                 "--metrics: " + fifo + ": is a FIFO, not a regular file; refusing to replace it");
  expect_refused(simulate({"--session", session, "--summary-json", dir.path().string()}),
                 "--summary-json: " + dir.path().string() +
                     ": is a directory, not a regular file; refusing to replace it");
  const auto missing = dir.file("nope/m.csv");
  expect_refused(simulate({"--session", session, "--metrics", missing}),
                 "--metrics: " + missing + ": folder '" + dir.file("nope") + "' does not exist");
  expect_refused(simulate({"--session", "-"}),
                 "--session: '-' (stdout) is not supported here; give a file name");
  const auto both = dir.file("out");
  expect_refused(simulate({"--metrics", both, "--summary-json", dir.path().string() + "/./out"}),
                 "--summary-json " + dir.path().string() + "/./out and --metrics " + both +
                     " are the same file: each output needs its own");
}

TEST_F(CliOutputs, SimulateWritesThroughALinkAndStdoutStillWorks) {
  const auto metrics = dir.file("m.csv");
  write_text(metrics, "old");
  const auto link = dir.file("m-link.csv");
  std::filesystem::create_symlink(metrics, link);
  const auto r = simulate({"--metrics", link, "--summary-json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{", 0), 0u) << r.out;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_text(metrics).rfind("step,", 0), 0u);
}

TEST_F(CliOutputs, RecordRefusesToOverwriteItsTrace) {
  expect_refused(run_process({cli_path(), "record", "--load", trace, "--out", trace}),
                 "--out " + trace + " is the same file as the input --load " + trace +
                     ": refusing to overwrite an input");
  expect_refused(run_process({cli_path(), "record", "--load", trace, "--out", fifo}),
                 "--out: " + fifo + ": is a FIFO, not a regular file; refusing to replace it");
}

TEST_F(CliOutputs, ReplayRefusesToOverwriteItsSession) {
  const auto session = dir.file("s.json");
  ASSERT_EQ(simulate({"--session", session}).exit_code, 0);
  const auto before = read_text(session);
  const auto r = run_process({cli_path(), "replay", "--session", session, "--summary-json", session});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kvscope-cli: --summary-json " + session + " is the same file as the input --session " +
                       session + ": refusing to overwrite an input\n");
  EXPECT_EQ(read_text(session), before);
}

}  // namespace
}  // namespace kvscope::test
