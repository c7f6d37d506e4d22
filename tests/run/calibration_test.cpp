#include <gtest/gtest.h>

#include <cmath>

#include "load/vllm_bench.hpp"
#include "model/calibration.hpp"
#include "model/gpu_spec.hpp"
#include "run/calibration_fit.hpp"
#include "run/run_service.hpp"

namespace kvscope {
namespace {

// A measurement made by the simulator itself with known efficiencies: calibration must find them.
vllm_bench_result synthetic_measurement(const engine_options& truth, std::uint32_t concurrency,
                                        std::uint32_t prompt, std::uint32_t output, std::uint32_t count) {
  vllm_bench_result m;
  m.source = "synthetic-c" + std::to_string(concurrency);
  m.max_concurrency = concurrency;
  m.request_rate = INFINITY;
  m.duration_s = 1;
  m.completed = count;
  m.input_lens.assign(count, prompt);
  m.output_lens.assign(count, output);
  const auto [ttft, tpot] = simulated_medians_ms(truth, m, count);
  m.summary_ms["median_ttft_ms"] = ttft;
  m.summary_ms["median_tpot_ms"] = tpot;
  return m;
}

engine_options h100_llama() {
  engine_options o;
  o.model = "llama3-8b";
  o.gpu = "h100";
  o.budget_bytes = 0;  // auto
  return o;
}

TEST(Calibration, RecoversKnownParametersWithinTwoPercent) {
  auto truth = h100_llama();
  truth.compute_efficiency = 0.45;
  truth.memory_efficiency = 0.7;
  truth.layer_overhead_s = 30e-6;
  truth.sequence_overhead_s = 40e-6;
  const std::vector<vllm_bench_result> measured = {
      synthetic_measurement(truth, 1, 2048, 64, 8),     // prefill-heavy TTFT, batch-1 decode
      synthetic_measurement(truth, 16, 256, 256, 64),   // a medium decode batch
      synthetic_measurement(truth, 64, 512, 128, 128),  // a wide decode batch
  };
  const auto fitted = fit_calibration(h100_llama(), measured);
  ASSERT_TRUE(fitted.has_value()) << fitted.error();
  EXPECT_NEAR(fitted->compute_efficiency, 0.45, 0.45 * 0.02);
  EXPECT_NEAR(fitted->memory_efficiency, 0.7, 0.7 * 0.02);
  EXPECT_NEAR(fitted->layer_overhead_s, 30e-6, 30e-6 * 0.02);
  EXPECT_EQ(fitted->step_overhead_s, default_step_overhead_s);  // held: the layers' cost is fitted
  EXPECT_NEAR(fitted->sequence_overhead_s, 40e-6, 40e-6 * 0.02);
  EXPECT_LT(fitted->rms_relative_error, 0.005);
  ASSERT_EQ(fitted->residuals.size(), 3u);
}

// Calibrated on the hand-written measurement, the simulation reproduces its TPOT p50 within 10 %.
TEST(Calibration, CalibratedRunReproducesTheMeasuredTpot) {
  const auto m = read_vllm_bench(std::string(KVSCOPE_TEST_DATA_DIR) + "/vllm_bench_llama8b_h100_c1.json");
  ASSERT_TRUE(m.has_value()) << m.error();
  const auto fitted = fit_calibration(h100_llama(), {*m});
  ASSERT_TRUE(fitted.has_value()) << fitted.error();
  run_description run;
  run.load_spec = std::string("bench:") + KVSCOPE_TEST_DATA_DIR + "/vllm_bench_llama8b_h100_c1.json";
  run.options = h100_llama();
  run.options.compute_efficiency = fitted->compute_efficiency;
  run.options.memory_efficiency = fitted->memory_efficiency;
  run.options.step_overhead_s = fitted->step_overhead_s;
  run.options.layer_overhead_s = fitted->layer_overhead_s;
  run.options.sequence_overhead_s = fitted->sequence_overhead_s;
  const auto s = run_to_end(run).summary.service;
  EXPECT_NEAR(1e3 * s.latency.tpot_s.p50, 6.55, 6.55 * 0.10);
  EXPECT_NEAR(1e3 * s.latency.ttft_s.p50, 28.95, 28.95 * 0.10);
}

TEST(Calibration, MissingMediansAreNamed) {
  vllm_bench_result m;
  m.source = "m.json";
  EXPECT_EQ(measured_medians_ms(m).error(),
            "m.json: field 'median_ttft_ms': missing (and no ttfts to compute it from)");
  m.ttfts_s = {0.02, 0.03};
  EXPECT_EQ(measured_medians_ms(m).error(),
            "m.json: field 'median_tpot_ms': missing (and no itls to compute it from)");
  m.itls_s = {{0.006, 0.008}, {0.007}};
  const auto medians = measured_medians_ms(m);
  ASSERT_TRUE(medians.has_value());
  EXPECT_DOUBLE_EQ(medians->first, 25);
  EXPECT_DOUBLE_EQ(medians->second, 7);
}

TEST(Calibration, AMedianOfZeroIsCalledWrongNotMissing) {
  vllm_bench_result m;
  m.source = "m.json";
  m.ttfts_s = {0.02, 0.03};
  m.itls_s = {{0.006}};
  m.summary_ms["median_ttft_ms"] = 0;
  EXPECT_EQ(measured_medians_ms(m).error(), "m.json: field 'median_ttft_ms': must be more than 0 ms, got 0");
  m.summary_ms["median_ttft_ms"] = 30;
  m.summary_ms["median_tpot_ms"] = -2.5;
  EXPECT_EQ(measured_medians_ms(m).error(), "m.json: field 'median_tpot_ms': must be more than 0 ms, got -2.5");
}

// A number past a double is an error naming the file (the fuzzer's find: it escaped as an
// uncaught nlohmann out_of_range and killed the process).
TEST(Calibration, ANumberPastADoubleIsAnErrorNamingTheFile) {
  const auto c = parse_calibration(R"({"kvscope_calibration": 1, "model": "m", "gpu": "h100",
      "compute_efficiency": 0.5, "memory_efficiency": 0.5, "step_overhead_s": 2e505})", "c.json");
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().rfind("c.json: invalid JSON: ", 0), 0u) << c.error();
}

}  // namespace
}  // namespace kvscope
