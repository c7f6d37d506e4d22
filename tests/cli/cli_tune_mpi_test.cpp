// `mpirun -n 3 kvscope-cli tune`: rank 0 searches, ranks 1 and 2 score the configs it hands out;
// the written config, its provenance and the printed choice equal one process's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

const std::string tune_load = "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=300,seed=11";

std::vector<std::string> tune_args(const std::string& out, const std::string& objective) {
  std::vector<std::string> a{cli_path(), "tune", "--load", tune_load, "--model", "tiny", "--budget", "16MiB",
                             "--space", "q8_threshold=0.6,0.8 ewma_alpha=0.1,0.5 hysteresis=0.02,0.08",
                             "--objective", objective, "--constraint", "attention_error_exposure<=0.3",
                             "--out", out};
  if (objective == "max:capacity_rps") a.insert(a.end(), {"--slo", "ttft=2,tpot=0.05"});
  return a;
}

void expect_same_choice(const std::string& objective) {
  temp_dir dir;
  std::filesystem::create_directories(dir.file("one"));
  std::filesystem::create_directories(dir.file("ranks"));
  const auto one = run_process([&] {
    auto a = tune_args(dir.file("one/tuned.json"), objective);
    a.insert(a.end(), {"--jobs", "1"});
    return a;
  }());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto ranks = run_mpi_ranks(tune_args(dir.file("ranks/tuned.json"), objective));
  ASSERT_EQ(ranks.exit_code, 0) << ranks.out << ranks.err;
  EXPECT_EQ(read_text(dir.file("ranks/tuned.json")), read_text(dir.file("one/tuned.json")));
  EXPECT_EQ(read_text(dir.file("ranks/tuned.json.provenance.json")), read_text(dir.file("one/tuned.json.provenance.json")));
  // The search's report (configs run, engine runs, best, score) up to the output's folder name.
  auto unfold = [](std::string text, const std::string& folder) {
    for (auto at = text.find(folder); at != std::string::npos; at = text.find(folder)) text.replace(at, folder.size(), "X");
    return text;
  };
  EXPECT_EQ(unfold(ranks.out, "/ranks/"), unfold(one.out, "/one/"));
}

TEST(CliTuneMpi, RanksChooseWhatOneProcessChooses) {
#if !KVSCOPE_TEST_MPI
  GTEST_SKIP() << "kvscope-cli was built without MPI (-DKVSCOPE_MPI=OFF): no mpirun test";
#endif
  if (run_process({"/bin/sh", "-c", "command -v mpirun"}).exit_code != 0) {
    GTEST_SKIP() << "mpirun is not installed (packaging/install-deps.sh installs openmpi-bin)";
  }
  expect_same_choice("max:goodput_rps");
  expect_same_choice("max:capacity_rps");
}

}  // namespace
}  // namespace kvscope::test
