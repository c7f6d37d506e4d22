// Hostile model and GPU files, outputs aimed at any input, and loads the server cannot keep up
// with: each ends with a clear message and an exit status, never a crash, a hang, a replaced
// input or a process that eats the machine's memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

// The tiny model's config.json with `layers` layers.
std::string tiny_config(const std::string& layers) {
  std::string text = read_text(std::string(KVSCOPE_TEST_DATA_DIR) + "/../../resources/models/tiny.json");
  const std::string from = "\"num_hidden_layers\": 2";
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos);
  return text.replace(at, from.size(), "\"num_hidden_layers\": " + layers);
}

// 2^31 layers made `2 * layers` 0 in 32 bits: the pool divided by zero (SIGFPE, exit 136).
// 2^31 + 2 made it 4: the run went on as a 2-layer model, exit 0.
TEST(CliReliability, ALayerCountBeyondAnyModelIsRefusedNotACrash) {
  temp_dir dir;
  for (const std::string layers : {"2147483648", "2147483650"}) {
    const auto model = dir.file("m" + layers + ".json");
    write_text(model, tiny_config(layers));
    const auto r = run_process({cli_path(), "simulate", "--load", small_load, "--model", model,
                                "--budget", "64MiB", "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "kvscope-cli: --model: " + model +
                         ": field 'num_hidden_layers': expected a whole number in [1, 4096], got "
                         "number " + layers + "\n");
    EXPECT_EQ(r.out, "");
  }
}

// A bandwidth no GPU has gave TTFT inf and TPOT -nan with exit 0 (and hung the GUI).
TEST(CliReliability, AGpuFileOutsideAnyGpuIsRefused) {
  temp_dir dir;
  const auto gpu = dir.file("slow.json");
  write_text(gpu, R"({"peak_bf16_flops": 1e15, "memory_bandwidth_bytes_per_s": 1e-300,
                      "memory_bytes": "80 GiB", "link_bandwidth_bytes_per_s": 4.5e11})");
  const auto r = run_process({cli_path(), "simulate", "--load", small_load, "--model", "tiny",
                              "--budget", "64MiB", "--gpu", gpu, "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "kvscope-cli: --gpu: " + gpu +
                       ": field 'memory_bandwidth_bytes_per_s': expected bytes/s in [1e10, 1e14] "
                       "(an H100 SXM: 3.35e12), got number 1e-300\n");
}

// Outputs were checked against --load, --policy, --configs and --measured only: the model,
// GPU and calibration files could be written over (a model file turned into a CSV, exit 0).
class CliEveryInput : public ::testing::Test {
 protected:
  CliEveryInput() {
    model = dir.file("model.json");
    write_text(model, tiny_config("2"));
    gpu = dir.file("gpu.json");
    write_text(gpu, read_text(std::string(KVSCOPE_TEST_DATA_DIR) + "/../../resources/gpus/h100.json"));
    calibration = dir.file("cal.json");
    write_text(calibration, R"({"kvscope_calibration": 1, "model": "tiny", "gpu": ")" + gpu +
                                R"(", "compute_efficiency": 0.5, "memory_efficiency": 0.7,
                                    "step_overhead_s": 0.0005, "sequence_overhead_s": 0})");
    for (const auto& f : {model, gpu, calibration}) before.push_back(read_text(f));
  }

  // Exit 2 naming `output` and `input`, and no input changed.
  void expect_refused(const std::vector<std::string>& argv, const std::string& output,
                      const std::string& input) {
    const auto r = run_process(argv);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(output + " is the same file as the input " + input), std::string::npos)
        << r.err;
    const std::string files[] = {model, gpu, calibration};
    for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(read_text(files[i]), before[i]) << files[i];
  }

  std::vector<std::string> simulate(std::vector<std::string> extra) const {
    std::vector<std::string> argv{cli_path(), "simulate", "--load", small_load, "--model", model,
                                  "--budget", "64MiB", "--gpu", gpu, "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  temp_dir dir;
  std::string model, gpu, calibration;
  std::vector<std::string> before;
};

TEST_F(CliEveryInput, SimulateWritesOverNoModelGpuOrCalibrationFile) {
  expect_refused(simulate({"--requests", model}), "--requests " + model, "--model " + model);
  expect_refused(simulate({"--summary-json", gpu}), "--summary-json " + gpu, "--gpu " + gpu);
  expect_refused(simulate({"--calibration", calibration, "--metrics", calibration}),
                 "--metrics " + calibration, "--calibration " + calibration);
  expect_refused(simulate({"--session", model}), "--session " + model, "--model " + model);
}

TEST_F(CliEveryInput, SweepTuneAndCalibrateWriteOverNoModelOrGpuFile) {
  expect_refused({cli_path(), "sweep", "--load", small_load, "--model", model, "--budget", "64MiB",
                  "--grid", "q8_threshold=0.5,0.6", "--out", model},
                 "--out " + model, "--model " + model);
  const auto tuned = dir.file("gpu.json");
  expect_refused({cli_path(), "tune", "--load", small_load, "--model", "tiny", "--budget", "64MiB",
                  "--gpu", gpu, "--space", "q8_threshold=0.5,0.6", "--objective",
                  "min:attention_error_exposure", "--out", tuned},
                 "--out " + tuned, "--gpu " + gpu);
  expect_refused({cli_path(), "calibrate", "--measured",
                  data_path("vllm_bench_llama8b_h100_c1.json"), "--model", model, "--gpu", gpu,
                  "--out", model},
                 "--out " + model, "--model " + model);
}

TEST_F(CliEveryInput, ReplayWritesOverNoModelFileItsSessionNames) {
  const auto session = dir.file("s.json");
  const auto made = run_process(simulate({"--session", session}));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  expect_refused({cli_path(), "replay", "--session", session, "--metrics", model},
                 "--metrics " + model, "model (in the session) " + model);
}

// rate=1e9 grew the waiting queue by ~300 MB/s until the machine killed the process. Past
// --max-waiting-requests the run stops: exit 1, how overloaded the load is, no output written.
TEST(CliReliability, AnOverloadedServerStopsAtTheQueueBound) {
  temp_dir dir;
  const auto metrics = dir.file("m.csv");
  write_text(metrics, "old\n");
  const auto r = run_process({cli_path(), "simulate", "--load", "gen:rate=1e9,duration=1e6",
                              "--model", "tiny", "--budget", "64MiB", "--max-waiting-requests",
                              "5000", "--metrics", metrics});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("kvscope-cli: overloaded: 5001 requests waiting at ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("raise --max-waiting-requests"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_text(metrics), "old\n");
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

// A process killed where it cannot clean up (SIGKILL, the out-of-memory killer) left its
// temporary behind for good. The next write to the same file removes those whose process is gone,
// and only those.
TEST(CliReliability, ANextWriteRemovesTemporariesOfKilledRuns) {
  temp_dir dir;
  const auto out = dir.file("load.jsonl");
  const process_result gone = run_process({"/bin/sh", "-c", "echo $$"});
  const std::string dead_pid = gone.out.substr(0, gone.out.find('\n'));
  const auto stale = dir.file(".load.jsonl.tmp-" + dead_pid + "-42");
  const auto live = dir.file(".load.jsonl.tmp-" + std::to_string(::getpid()) + "-42");
  const auto other = dir.file(".other.jsonl.tmp-" + dead_pid + "-42");
  for (const auto& f : {stale, live, other}) write_text(f, "partial");
  const auto r = run_process({cli_path(), "record", "--load", small_load, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(stale)) << "a dead run's temporary stays";
  EXPECT_TRUE(std::filesystem::exists(live)) << "a live process's temporary was removed";
  EXPECT_TRUE(std::filesystem::exists(other)) << "another file's temporary was removed";
}

}  // namespace
}  // namespace kvscope::test
