// Replays every fuzz seed and every tests/data file through the fuzz targets' bodies in the
// ordinary build, so corpus inputs (and any crash reproducer added to the corpus) stay fixed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>

#include "fuzz_bodies.hpp"

namespace kvscope::fuzz {
namespace {

namespace fs = std::filesystem;

template <class Kind>
void replay_dir(Kind t, const fs::path& dir) {
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    if constexpr (std::is_same_v<Kind, target>) {
      run_one(t, data, bytes.size());
    } else {
      run_document(t, data, bytes.size());
    }
    ++n;
  }
  EXPECT_GT(n, 0) << dir;
}

const fs::path corpus = KVSCOPE_FUZZ_CORPUS_DIR;

TEST(FuzzCorpus, Azure) { replay_dir(target::azure, corpus / "azure"); }
TEST(FuzzCorpus, BurstGpt) { replay_dir(target::burstgpt, corpus / "burstgpt"); }
TEST(FuzzCorpus, Vidur) { replay_dir(target::vidur, corpus / "vidur"); }
TEST(FuzzCorpus, Mooncake) { replay_dir(target::mooncake, corpus / "mooncake"); }
TEST(FuzzCorpus, Native) { replay_dir(target::native, corpus / "native"); }
TEST(FuzzCorpus, Detect) { replay_dir(target::detect, corpus / "detect"); }
TEST(FuzzCorpus, GenSpec) { replay_dir(target::gen_spec, corpus / "gen_spec"); }
TEST(FuzzCorpus, Policy) { replay_dir(target::policy, corpus / "policy"); }
TEST(FuzzCorpus, Session) { replay_dir(document::session, corpus / "session"); }
TEST(FuzzCorpus, ModelConfig) { replay_dir(document::model_config, corpus / "model_config"); }
TEST(FuzzCorpus, VllmBench) { replay_dir(document::vllm_bench, corpus / "vllm_bench"); }
TEST(FuzzCorpus, Tour) { replay_dir(document::tour, corpus / "tour"); }
TEST(FuzzCorpus, RequestsCsv) { replay_dir(document::requests_csv, corpus / "requests_csv"); }
TEST(FuzzCorpus, SweepCsv) { replay_dir(document::sweep_csv, corpus / "sweep_csv"); }
TEST(FuzzCorpus, Gpu) { replay_dir(document::gpu, corpus / "gpu"); }
TEST(FuzzCorpus, Calibration) { replay_dir(document::calibration, corpus / "calibration"); }
TEST(FuzzCorpus, TestDataThroughDetection) { replay_dir(target::detect, KVSCOPE_TEST_DATA_DIR); }

TEST(FuzzCorpus, EmptyAndTinyInputs) {
  for (auto t : {target::azure, target::burstgpt, target::vidur, target::mooncake, target::native,
                 target::detect, target::gen_spec, target::policy}) {
    run_one(t, nullptr, 0);
    const std::uint8_t one[] = {'\n'};
    run_one(t, one, 1);
  }
  for (auto d : {document::session, document::model_config, document::vllm_bench, document::tour,
                 document::requests_csv, document::sweep_csv, document::gpu, document::calibration}) {
    run_document(d, nullptr, 0);
    const std::uint8_t one[] = {'\n'};
    run_document(d, one, 1);
  }
}

}  // namespace
}  // namespace kvscope::fuzz
