#include <gtest/gtest.h>

#include <cmath>

#include "load/vllm_bench.hpp"
#include "model/calibration.hpp"
#include "model/builtin_models.hpp"
#include "model/gpu_spec.hpp"
#include "policy/policy_config.hpp"
#include "run/bench_replay.hpp"
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

// Memory efficiency stays at the GPU's: over these loads moving it moves the medians within 6
// degrees of what the per-layer overhead does, so the figures cannot tell the two apart and the
// fit holds it (a truth of 0.7 came out as 0.82 with the layers' cost doubled, all six medians
// within 0.5 %).
TEST(Calibration, RecoversKnownParametersWithinTwoPercent) {
  auto truth = h100_llama();
  truth.compute_efficiency = 0.45;
  truth.sustained_share = 1.0;  // measured on the GPU: what it sustains is in the efficiency
  truth.memory_efficiency = resolve_gpu("h100")->memory_efficiency;
  truth.layer_overhead_s = 30e-6;
  truth.kv_memory_efficiency = 0.6;
  const std::vector<vllm_bench_result> measured = {
      synthetic_measurement(truth, 1, 2048, 64, 8),     // prefill-heavy TTFT, batch-1 decode
      synthetic_measurement(truth, 16, 256, 256, 64),   // a medium decode batch
      synthetic_measurement(truth, 64, 512, 128, 128),  // a wide decode batch
  };
  const auto fitted = fit_calibration(h100_llama(), measured);
  ASSERT_TRUE(fitted.has_value()) << fitted.error();
  EXPECT_NEAR(fitted->compute_efficiency, 0.45, 0.45 * 0.02);
  EXPECT_NEAR(fitted->memory_efficiency, truth.memory_efficiency, 1e-9);
  EXPECT_NEAR(fitted->layer_overhead_s, 30e-6, 30e-6 * 0.02);
  EXPECT_EQ(fitted->step_overhead_s, default_step_overhead_s);  // held: the layers' cost is fitted
  EXPECT_NEAR(fitted->kv_memory_efficiency, 0.6, 0.6 * 0.02);
  EXPECT_LT(fitted->rms_relative_error, 0.005);
  ASSERT_EQ(fitted->residuals.size(), 3u);
  EXPECT_EQ(fitted->independent_figures, 6u);
  EXPECT_EQ(fitted->fitted,
            (std::vector<std::string>{"compute_efficiency", "layer_overhead_s", "kv_memory_efficiency"}));
  // The cost per sequence moves these medians too nearly as the KV read rate does to be told apart.
  EXPECT_EQ(fitted->held, (std::vector<std::string>{"sequence_overhead_s", "memory_efficiency", "step_overhead_s"}));
}

// One load is two figures: the fit moves the two parameters they determine (a TTFT the prefill
// arithmetic, a low-concurrency TPOT the fixed cost of every layer), holds the rest at the GPU's
// defaults, says so, and claims no error band (it fits exactly by construction).
TEST(Calibration, OneLoadFitsOnlyWhatItsTwoFiguresDetermine) {
  auto truth = h100_llama();
  truth.compute_efficiency = 0.5;
  truth.layer_overhead_s = 30e-6;
  const auto m = synthetic_measurement(truth, 1, 1024, 64, 4);
  const auto fitted = fit_calibration(h100_llama(), {m});
  ASSERT_TRUE(fitted.has_value()) << fitted.error();
  EXPECT_EQ(fitted->independent_figures, 2u);
  EXPECT_EQ(fitted->fitted, (std::vector<std::string>{"compute_efficiency", "layer_overhead_s"}));
  EXPECT_EQ(fitted->held,
            (std::vector<std::string>{"kv_memory_efficiency", "sequence_overhead_s", "memory_efficiency",
                                      "step_overhead_s"}));
  const auto h100 = resolve_gpu("h100");
  ASSERT_TRUE(h100.has_value());
  EXPECT_NEAR(fitted->memory_efficiency, h100->memory_efficiency, 1e-9);
  EXPECT_NEAR(fitted->sequence_overhead_s, h100->sequence_overhead_s, 1e-12);
  EXPECT_EQ(fitted->basis, band_basis::none);
  EXPECT_TRUE(fitted->leave_one_out.empty());
  EXPECT_LT(fitted->rms_relative_error, 0.01);
  // A second file of the same load adds no figure.
  const auto twice = fit_calibration(h100_llama(), {m, m}, {.max_evaluations = 100});
  ASSERT_TRUE(twice.has_value()) << twice.error();
  EXPECT_EQ(twice->independent_figures, 2u);
  EXPECT_EQ(twice->fitted.size(), 2u);
}

// With two loads or more each is predicted by a fit on the others, and that error is the band.
TEST(Calibration, LeaveOneOutPredictsEachLoadFromTheOthers) {
  auto truth = h100_llama();
  truth.compute_efficiency = 0.5;
  truth.layer_overhead_s = 40e-6;
  truth.sequence_overhead_s = 30e-6;
  const std::vector<vllm_bench_result> measured = {synthetic_measurement(truth, 1, 1024, 64, 4),
                                                   synthetic_measurement(truth, 8, 1024, 64, 32),
                                                   synthetic_measurement(truth, 32, 1024, 64, 64)};
  const auto fitted = fit_calibration(h100_llama(), measured, {.max_evaluations = 300});
  ASSERT_TRUE(fitted.has_value()) << fitted.error();
  ASSERT_EQ(fitted->leave_one_out.size(), 3u);
  EXPECT_EQ(fitted->basis, band_basis::leave_one_out);
  EXPECT_TRUE(std::isfinite(fitted->leave_one_out_rms_relative_error));
  EXPECT_GE(fitted->leave_one_out_rms_relative_error, fitted->rms_relative_error);
  EXPECT_LE(fitted->band.ttft_lo, 0);
  EXPECT_GE(fitted->band.ttft_hi, 0);
  // The band is the left-out errors' extremes.
  double worst = 0;
  for (const auto& r : fitted->leave_one_out) worst = std::max(worst, r.predicted_tpot_ms / r.measured_tpot_ms - 1);
  EXPECT_DOUBLE_EQ(fitted->band.tpot_hi, worst);
}

// One server's sweep (LambdaLabsML's Mistral-7B on an A100 80GB, vLLM 0.6 with 10-step
// schedules: fidelity rows P10-P12, 10, 80 and 320 requests sent at once), calibrated on its
// ends: both within 5 %, and the load between within 7 % on end-to-end latency. Its TPOT comes
// out 7.6 % over and its TTFT 7.7 % under, just beyond issue 27's 7 % (docs/timing-model.md,
// "Measured"): the bounds below hold what is measured so that it cannot get worse.
TEST(Calibration, OneServersSweepCalibratedOnItsEnds) {
  engine_options o;
  o.model = "mistral-7b";
  o.gpu = "a100-80g";
  o.budget_bytes = 0;
  o.vllm_engine = vllm_engine_kind::v0;
  o.max_model_len = 2000;
  o.scheduler.max_num_batched_tokens = 2048;
  o.scheduler.max_num_seqs = 256;
  o.scheduler.num_scheduler_steps = 10;  // their files stream ~10 tokens a chunk
  o.policy = *policy_preset("fp16_only");
  const auto file = [](const char* name) {
    auto m = read_vllm_bench(std::string(KVSCOPE_TEST_DATA_DIR) + "/fidelity/lambda/" + name);
    EXPECT_TRUE(m.has_value()) << m.error();
    return *m;
  };
  const auto fitted = fit_calibration(o, {file("mistral_a100_10.json"), file("mistral_a100_320.json")},
                                      {.leave_one_out = false});
  ASSERT_TRUE(fitted.has_value()) << fitted.error();
  for (const auto& r : fitted->residuals) {
    EXPECT_NEAR(r.predicted_ttft_ms / r.measured_ttft_ms, 1, 0.05) << r.source;
    EXPECT_NEAR(r.predicted_tpot_ms / r.measured_tpot_ms, 1, 0.05) << r.source;
  }
  apply_calibration(o, *fitted);
  const auto between = file("mistral_a100_80.json");
  const auto r = replay_vllm_bench(o, between);
  EXPECT_NEAR(1e3 * r.tpot_s.p50 / between.summary_ms.at("median_tpot_ms"), 1, 0.08);
  EXPECT_NEAR(1e3 * r.ttft_s.p50 / between.summary_ms.at("median_ttft_ms"), 1, 0.08);
  EXPECT_NEAR(1e3 * r.e2e_s.p50 / between.summary_ms.at("median_e2el_ms"), 1, 0.07);
}

// A calibration's band travels in its file, and a prediction's range is the measurements that
// would have given it with the band's errors.
TEST(Calibration, TheBandRoundTripsAndMakesTheRange) {
  calibration c;
  c.model = "llama3-8b";
  c.gpu = "h100";
  c.compute_efficiency = 0.6;
  c.memory_efficiency = 0.8;
  c.step_overhead_s = 1e-4;
  c.kv_memory_efficiency = 0.55;
  c.band = {-0.05, 0.10, -0.02, 0.04};
  c.basis = band_basis::leave_one_out;
  const auto back = parse_calibration(calibration_to_json(c), "c.json");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->basis, band_basis::leave_one_out);
  EXPECT_DOUBLE_EQ(back->kv_memory_efficiency, 0.55);
  EXPECT_DOUBLE_EQ(back->band.ttft_hi, 0.10);
  EXPECT_DOUBLE_EQ(back->band.tpot_lo, -0.02);
  const auto r = ttft_range(*back, 11.0);
  EXPECT_DOUBLE_EQ(r.lo, 10.0);         // a model 10 % high: the measurement 11 / 1.1
  EXPECT_DOUBLE_EQ(r.hi, 11.0 / 0.95);  // 5 % low
  const auto t = throughput_range(*back, 100.0);
  EXPECT_DOUBLE_EQ(t.lo, 98.0);
  EXPECT_DOUBLE_EQ(t.hi, 104.0);
  // A band that is not one is refused, naming the field.
  auto text = calibration_to_json(c);
  text.replace(text.find("\"leave-one-out\""), 15, "\"guess\"");
  EXPECT_NE(parse_calibration(text, "c.json").error().find("field 'error_band.basis'"), std::string::npos);
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
  apply_calibration(run.options, *fitted);
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
  m.output_lens = {3, 2};  // vLLM's TPOT: the gaps over output_len - 1 tokens
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
