// Exit codes and messages that say what is wrong: a directory given as an input file, an empty
// output name, an unknown command and a huge input line are bad usage (exit 2), named as such.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

void expect_bad_input(const process_result& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("basic_filebuf"), std::string::npos) << r.err;
}

TEST(CliMessages, ADirectoryGivenAsAFileIsBadInputNamedAsSuch) {
  temp_dir dir;
  const std::string folder = dir.file("config.json");  // a directory whose name looks like a file
  std::filesystem::create_directory(folder);
  const std::string is_directory = folder + ": is a directory, not a file";
  const std::vector<std::string> run{cli_path(), "simulate", "--load", small_load, "--budget", "4MiB", "--quiet"};
  auto with = [&](std::vector<std::string> extra) {
    auto argv = run;
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv);
  };
  expect_bad_input(with({"--model", folder}), is_directory);
  expect_bad_input(with({"--model", "tiny", "--gpu", folder}), is_directory);
  expect_bad_input(run_process({cli_path(), "simulate", "--load", "bench:" + folder, "--model", "tiny",
                                "--budget", "4MiB", "--quiet"}),
                   is_directory);
  expect_bad_input(run_process({cli_path(), "tour", "--script", folder}), is_directory);
  expect_bad_input(run_process({cli_path(), "policy", "--preset", "default", "--input", folder}), is_directory);
}

TEST(CliMessages, AnEmptyOutputNameIsRefusedWhileParsing) {
  const auto record = run_process({cli_path(), "record", "--load", small_load, "--out", ""});
  expect_bad_input(record, "--out: an empty file name names no file");
  const auto simulate = run_process({cli_path(), "simulate", "--load", small_load, "--model", "tiny", "--budget",
                                     "4MiB", "--quiet", "--metrics", ""});
  expect_bad_input(simulate, "--metrics: an empty file name names no file");
}

TEST(CliMessages, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  const auto r = run_process({cli_path(), "frobnicate"});
  expect_bad_input(r, "kvscope-cli: unknown command 'frobnicate'; the commands are policy, validate, ");
  EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
  expect_bad_input(run_process({cli_path(), "simulat", "--load", small_load}),
                   "unknown command 'simulat' (did you mean 'simulate'?)");
  // No word at all is still "a subcommand is required".
  expect_bad_input(run_process({cli_path()}), "A subcommand is required");
}

TEST(CliMessages, AHugeInputLineIsCutInTheMessage) {
  temp_dir dir;
  const auto input = dir.file("pressures.txt");
  write_text(input, "0.5\n" + std::string(1'000'000, 'x') + "\n");
  const auto r = run_process({cli_path(), "policy", "--preset", "default", "--input", input});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, input + ":2: not a number: '" + std::string(80, 'x') + "...' (1000000 bytes)\n");
}

}  // namespace
}  // namespace kvscope::test
