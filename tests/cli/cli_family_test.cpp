// The policy families from the command line: one sweep compares them, the same bytes whatever
// --jobs; their files validate; bad parameters exit 2 naming the field.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

const std::string family_load = "gen:rate=20,prompt=lognormal:1000:0.8,output=uniform:200:0.5,duration=60,seed=7";

std::vector<std::vector<std::string>> csv_cells(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
    rows.push_back(std::move(cells));
  }
  return rows;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c] == name) return c;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(CliFamilies, OneSweepComparesTheFamiliesWithTheSameBytesWhateverTheJobs) {
  temp_dir dir;
  std::string bytes;
  for (const char* jobs : {"1", "2"}) {
    const auto out = dir.file(std::string("j") + jobs + ".csv");
    const auto r = run_process({cli_path(), "sweep", "--load", family_load, "--model", "tiny", "--budget", "16MiB",
                                "--grid", "family=ewma,static,age,sinks_recent", "--jobs", jobs, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (bytes.empty()) {
      bytes = read_text(out);
    } else {
      EXPECT_EQ(read_text(out), bytes);
    }
  }
  const auto rows = csv_cells(bytes);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0][1], "family");
  const auto transitions = column(rows[0], "level_transitions");
  const auto migrated = column(rows[0], "migrated_blocks");
  const auto q4 = column(rows[0], "peak_bytes_per_level.q4");
  const auto q8 = column(rows[0], "peak_bytes_per_level.q8");
  const char* families[] = {"ewma", "static", "age", "sinks_recent"};
  for (std::size_t i = 1; i < rows.size(); ++i) {
    SCOPED_TRACE(families[i - 1]);
    EXPECT_EQ(rows[i][1], families[i - 1]);
    EXPECT_NE(rows[i][migrated], "0");
    // Only the controller changes level; static (q8 by default) never holds q4.
    EXPECT_EQ(rows[i][transitions] == "0", i != 1);
  }
  EXPECT_EQ(rows[2][q4], "0");
  EXPECT_NE(rows[2][q8], "0");
  EXPECT_NE(rows[3][q4], "0");
  EXPECT_NE(rows[3][q8], "0");
  // Four families, four different runs.
  for (std::size_t i = 1; i < rows.size(); ++i) {
    for (std::size_t j = i + 1; j < rows.size(); ++j) {
      EXPECT_NE(std::vector<std::string>(rows[i].begin() + 2, rows[i].end()),
                std::vector<std::string>(rows[j].begin() + 2, rows[j].end()));
    }
  }
}

TEST(CliFamilies, FamilyFilesValidateAndTheSeedFormatIsUnchanged) {
  temp_dir dir;
  const auto age = dir.file("age.toml");
  write_text(age, "family = \"age\"\nq8_age_tokens = 256\nq4_age_tokens = 1024\n");
  auto r = run_process({cli_path(), "validate", age});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, age + ": valid policy: family=age q8_age_tokens=256 q4_age_tokens=1024\n");
  const auto sinks = dir.file("sinks.json");
  write_text(sinks, R"({"family": "sinks+recent", "sink_tokens": 4, "recent_tokens": 256, "fixed_level": "q4"})");
  r = run_process({cli_path(), "validate", sinks});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, sinks + ": valid policy: family=sinks_recent sink_tokens=4 recent_tokens=256 fixed_level=q4\n");
  // `policy` feeds pressures to the controller, which only ewma has.
  r = run_process({cli_path(), "policy", "--config", age}, "0.5\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the age family has no controller"), std::string::npos) << r.err;
  const auto bad = dir.file("bad.toml");
  write_text(bad, "family = \"age\"\nq8_age_tokens = 300\nq4_age_tokens = 200\n");
  r = run_process({cli_path(), "validate", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, bad + ": invalid kv-cache policy configuration: q4_age_tokens must be >= q8_age_tokens\n");
}

TEST(CliFamilies, SimulateTakesTheFamilyOptionsAndRefusesBadOnes) {
  temp_dir dir;
  const std::vector<std::string> base{cli_path(), "simulate", "--load", "gen:rate=10,count=30,seed=1",
                                      "--model", "tiny", "--budget", "16MiB"};
  auto args = base;
  args.insert(args.end(), {"--family", "sinks+recent", "--sink-tokens", "16", "--recent-tokens", "64",
                           "--fixed-level", "q4", "--session", dir.file("s.json")});
  auto r = run_process(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto session = nlohmann::json::parse(read_text(dir.file("s.json")));
  const auto& policy = session["options"]["policy"];
  EXPECT_EQ(policy["family"], "sinks_recent");
  EXPECT_EQ(policy["recent_tokens"], 64);
  EXPECT_EQ(run_process({cli_path(), "replay", "--session", dir.file("s.json")}).exit_code, 0);

  args = base;
  args.insert(args.end(), {"--family", "age", "--q8-age-tokens", "900", "--q4-age-tokens", "100"});
  r = run_process(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("q4_age_tokens must be >= q8_age_tokens"), std::string::npos) << r.err;
  args = base;
  args.insert(args.end(), {"--family", "lru"});
  r = run_process(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--family: expected one of ewma, static, age, sinks_recent, got 'lru'"), std::string::npos)
      << r.err;
}

TEST(CliFamilies, TuneOverFamiliesWritesAConfigThatValidates) {
  temp_dir dir;
  const auto out = dir.file("tuned.json");
  const auto r = run_process({cli_path(), "tune", "--load", "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=200,seed=11",
                              "--model", "tiny", "--budget", "16MiB", "--space", "family=static,age q4_age_tokens=1024,4096",
                              "--objective", "max:goodput_rps", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(run_process({cli_path(), "validate", out}).exit_code, 0);
  const auto config = nlohmann::json::parse(read_text(out));
  ASSERT_TRUE(config.contains("family"));
  // Only the chosen family's parameters are written.
  EXPECT_EQ(config.contains("q4_age_tokens"), config["family"] == "age");
  EXPECT_EQ(config.contains("fixed_level"), config["family"] == "static");
}

// Loads that used to run for ever: a request that, running alone, could not fit with its prefix
// hits (cached blocks keep the level they were stored at) or could not grow its prefill chunk,
// re-admitted or preempted itself every step; a windowed load's long prompt waited for room for
// its whole length. Each now ends, every request finished or rejected with a reason. `timeout`
// turns a hang into a failure.
TEST(CliFamilies, LoadsThatUsedToRunForEverEnd) {
  const std::vector<std::vector<std::string>> cases = {
      {"--load", data_path("mooncake_200.jsonl"), "--model", "llama3-8b", "--budget", "1GiB", "--family", "age"},
      {"--load", data_path("mooncake_200.jsonl"), "--model", "llama3-8b", "--budget", "1GiB", "--family",
       "sinks_recent"},
      {"--load", data_path("mooncake_200.jsonl"), "--model", "llama3-8b", "--budget", "2GiB", "--family", "age"},
      {"--load",
       "gen:rate=30,burstiness=0.5,prompt=lognormal:1500:0.8,output=uniform:300:0.5,duration=60,seed=7",
       "--model", "tiny", "--budget", "24MiB", "--max-tokens", "1024", "--no-prefix-caching"},
  };
  for (const auto& args : cases) {
    std::vector<std::string> argv = {"/usr/bin/timeout", "120", cli_path(), "simulate"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--threads", "1", "--summary-json", "-"});
    const auto r = run_process(argv);
    ASSERT_EQ(r.exit_code, 0) << args[1] << " " << args.back() << "\n" << r.err.substr(0, 400);
    const auto summary = nlohmann::json::parse(r.out);
    EXPECT_EQ(summary.at("requests_finished").get<std::uint64_t>() +
                  summary.at("requests_rejected").get<std::uint64_t>(),
              summary.at("requests_total").get<std::uint64_t>());
    EXPECT_GT(summary.at("requests_finished").get<std::uint64_t>(), 0u);
  }
}

}  // namespace
}  // namespace kvscope::test
