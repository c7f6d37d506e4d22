// Per-request outcomes and roofline timing through the real engine, on hand-computed cases.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "engine_test_support.hpp"
#include "io/summary_format.hpp"
#include "memory/error_factors.hpp"
#include "model/builtin_models.hpp"
#include "outcome/requests_csv.hpp"
#include "run/run_service.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

// A native JSONL load of the given rows.
std::string native_load(const test::temp_dir& dir, const std::string& rows) {
  const auto path = dir.file("load.jsonl");
  test::write_text(path, "{\"format\":\"kvscope-load\",\"version\":1,\"source\":\"test\"}\n" + rows);
  return path;
}

struct collected {
  run_result result;
  std::vector<request_record> records;
};

collected run_collecting(const run_description& run) {
  collected c;
  run_hooks hooks;
  hooks.on_request = [&](const request_record& r) { c.records.push_back(r); };
  c.result = run_to_end(run, hooks);
  return c;
}

// Linear timing (10 ms + 40 us per prompt token + 80 us per decoded token). One request of
// 100 prompt and 3 output tokens arriving at 0: the prefill step ends at 14 ms with the first
// token, two decode steps of 10.08 ms follow.
TEST(Outcomes, OneRequestByHand) {
  test::temp_dir dir;
  run_description run;
  run.load_spec = native_load(dir, "{\"id\":7,\"arrival_s\":0,\"prompt_tokens\":100,\"output_tokens\":3}\n");
  run.options = test::tiny_options(4ull << 20, payload_mode::accounting);
  const auto c = run_collecting(run);
  ASSERT_EQ(c.records.size(), 1u);
  const auto& r = c.records[0];
  EXPECT_EQ(r.request_id, 7u);
  EXPECT_EQ(r.outcome, request_outcome::finished);
  EXPECT_DOUBLE_EQ(r.queue_s(), 0.0);
  EXPECT_NEAR(r.ttft_s(), 0.014, 1e-12);
  EXPECT_NEAR(r.tpot_s(), 0.01008, 1e-12);
  EXPECT_NEAR(r.e2e_s(), 0.03416, 1e-12);
  const auto& lat = c.result.summary.service.latency;
  EXPECT_NEAR(lat.ttft_s.p50, 0.014, 1e-12);
  EXPECT_NEAR(lat.e2e_s.max, 0.03416, 1e-12);
  EXPECT_NEAR(lat.itl_s.p50, 0.01008, 0.01008 * 0.005);  // the sketch's bound
  EXPECT_NEAR(c.result.summary.service.requests_per_s, 1 / 0.03416, 1e-9);
  EXPECT_NEAR(c.result.summary.service.output_tokens_per_s, 3 / 0.03416, 1e-9);
}

// The second request shares the first's two full prompt blocks (prefix hashes) and arrives after
// it finished: its first 32 prompt tokens come from the prefix cache, so its prefill computes 8.
TEST(Outcomes, PrefixHitsAreCountedAndShortenThePrefill) {
  test::temp_dir dir;
  run_description run;
  run.load_spec = native_load(dir,
                              "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":40,\"output_tokens\":2,"
                              "\"prefix_block_size\":16,\"prefix_hashes\":[11,12]}\n"
                              "{\"id\":1,\"arrival_s\":1,\"prompt_tokens\":40,\"output_tokens\":2,"
                              "\"prefix_block_size\":16,\"prefix_hashes\":[11,12]}\n");
  run.options = test::tiny_options(4ull << 20, payload_mode::accounting);
  const auto c = run_collecting(run);
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_EQ(c.records[0].cached_prompt_tokens, 0u);
  EXPECT_EQ(c.records[1].cached_prompt_tokens, 32u);
  EXPECT_NEAR(c.records[0].ttft_s(), 0.010 + 40 * 40e-6, 1e-12);
  EXPECT_NEAR(c.records[1].ttft_s(), 0.010 + 8 * 40e-6, 1e-12);
}

// Two long requests in a pool that holds only one: the newer is preempted, keeps its arrival
// time, and its recomputed tokens are counted.
TEST(Outcomes, APreemptedRequestKeepsItsArrivalAndCountsRecomputation) {
  test::temp_dir dir;
  run_description run;
  run.load_spec = native_load(dir,
                              "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":300,\"output_tokens\":400}\n"
                              "{\"id\":1,\"arrival_s\":0,\"prompt_tokens\":300,\"output_tokens\":400}\n");
  auto& o = run.options;
  o = test::tiny_options(0, payload_mode::accounting);
  o.policy = *policy_preset("fp16_only");
  // 16 KiB frames (16 tokens of tiny at fp16): 64 frames = 1,024 tokens, less than the 1,400
  // both need at their longest.
  o.budget_bytes = 64 * 16 * 1024;
  const auto c = run_collecting(run);
  ASSERT_EQ(c.records.size(), 2u);
  std::uint64_t preempted = 0, recomputed = 0;
  for (const auto& r : c.records) {
    EXPECT_EQ(r.outcome, request_outcome::finished) << r.request_id;
    EXPECT_DOUBLE_EQ(r.arrival_s, 0.0);
    preempted += r.preemptions;
    recomputed += r.recomputed_tokens;
    EXPECT_NEAR(r.e2e_s(), r.finish_s - r.arrival_s, 1e-12);
  }
  EXPECT_GE(preempted, 1u);
  EXPECT_GT(recomputed, 300u);  // at least the prompt again
  EXPECT_EQ(c.result.summary.preemptions, preempted);
  EXPECT_EQ(c.result.summary.service.recomputed_tokens, recomputed);
}

// Rejected requests keep their reason: one longer than max_model_len, one bigger than the pool.
TEST(Outcomes, RejectionsKeepTheirReason) {
  test::temp_dir dir;
  run_description run;
  run.load_spec = native_load(dir,
                              "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":900,\"output_tokens\":200}\n"
                              "{\"id\":1,\"arrival_s\":0,\"prompt_tokens\":20,\"output_tokens\":5}\n");
  run.options = test::tiny_options(4ull << 20, payload_mode::accounting);
  run.options.max_model_len = 1000;
  const auto c = run_collecting(run);
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_EQ(c.records[0].request_id, 0u);
  EXPECT_EQ(c.records[0].outcome, request_outcome::rejected);
  EXPECT_EQ(c.records[0].reason, "prompt 900 + output 200 tokens exceed max_model_len 1000");
  EXPECT_EQ(c.records[1].outcome, request_outcome::finished);
  EXPECT_EQ(c.result.summary.requests_rejected, 1u);
  EXPECT_EQ(c.result.summary.service.rejected, 1u);
  ASSERT_EQ(c.result.final_engine->rejected().size(), 1u);
  EXPECT_EQ(c.result.final_engine->rejected()[0].cause, rejection_cause::longer_than_context);
}

// Goodput: all finished requests without an SLO, none with an impossible one, in between
// with a TTFT bound some requests miss.
TEST(Outcomes, GoodputWithAndWithoutSlos) {
  run_description run;
  run.load_spec = "gen:rate=40,prompt=lognormal:600:0.6,output=uniform:100:0.5,count=200,seed=4";
  run.options = test::tiny_options(2ull << 20, payload_mode::accounting);
  const auto none = run_to_end(run).summary.service;
  EXPECT_EQ(none.goodput_rps, none.requests_per_s);
  run.options.slo = "ttft=1e-9";
  const auto impossible = run_to_end(run).summary.service;
  EXPECT_EQ(impossible.goodput_rps, 0.0);
  EXPECT_EQ(impossible.slo_attainment, 0.0);
  run.options.slo = "ttft=" + std::to_string(none.latency.ttft_s.p50);
  const auto half = run_to_end(run).summary.service;
  EXPECT_GT(half.goodput_rps, 0.0);
  EXPECT_LT(half.goodput_rps, none.goodput_rps);
  EXPECT_NEAR(half.slo_attainment, 0.5, 0.05);
}

// The roofline step time is the model's estimate of the work the engine measured: one 1,000-token
// prefill of llama3-8b on an H100, computed by hand.
TEST(Outcomes, RooflineStepIsTheHandComputedWork) {
  run_description run;
  run.load_spec = "gen:rate=1,prompt=fixed:1000,output=fixed:2,count=1";
  run.options.model = "llama3-8b";
  run.options.gpu = "h100";
  run.options.budget_bytes = 8ull << 30;
  std::vector<double> step_seconds;
  std::vector<std::array<std::uint64_t, kv_level_count>> bytes_read;
  run_to_end(run, [&](const engine& e) {
    step_seconds.push_back(e.last_metrics().step_seconds);
    bytes_read.push_back(e.last_metrics().kv_bytes_read);
  });
  ASSERT_EQ(step_seconds.size(), 2u);
  const auto model = *builtin_model("llama3-8b");
  const auto gpu = *builtin_gpu("h100");
  const auto timing = *make_roofline({model, gpu, 1, default_dequant_flops_per_value});
  step_work prefill;
  prefill.tokens = 1000;
  prefill.sequences = 1;
  prefill.context_token_reads = 1000ull * 1001 / 2;  // token p attends to p + 1 tokens
  // 63 blocks of 16 tokens x 32 layers x 8 heads x 128 x (K, V) x 2 B = 2 MiB each, at fp16.
  prefill.kv_bytes_read_by_level[0] = 63ull << 21;
  prefill.kv_token_reads_by_level[0] = 63 * 16;
  prefill.kv_bytes_written = 1000ull * 128 * 1024;
  EXPECT_EQ(bytes_read[0][0], 63ull << 21);
  EXPECT_DOUBLE_EQ(step_seconds[0], timing.estimate(prefill).seconds);
  step_work decode;
  decode.tokens = 1;
  decode.sequences = 1;
  decode.context_token_reads = 1001;
  decode.kv_bytes_read_by_level[0] = 63ull << 21;  // token 1000 still fits block 62
  decode.kv_token_reads_by_level[0] = 63 * 16;
  decode.kv_bytes_written = 128 * 1024;
  EXPECT_DOUBLE_EQ(step_seconds[1], timing.estimate(decode).seconds);
  // Physics: a decode step reads every weight once; 16 GB at 3.35 TB/s is 4.8 ms.
  EXPECT_GT(step_seconds[1], static_cast<double>(weight_bytes(model)) / gpu.memory_bandwidth_bytes_per_s);
}

// The requests file and the summary come out the same whatever the thread count (data mode,
// where quantization and migration run in parallel).
TEST(Outcomes, DeterministicAcrossThreadCounts) {
  run_description run;
  run.load_spec = "gen:rate=30,prompt=lognormal:400:0.6,output=uniform:100:0.5,count=40,seed=8";
  run.options = test::tiny_options(2ull << 20, payload_mode::data);
  run.options.policy = *policy_preset("aggressive");
  run.options.gpu = "a100-40g";
  run.options.slo = "ttft=0.2,tpot=0.02";
  std::string rows[2], summaries[2];
  for (int i = 0; i < 2; ++i) {
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, i == 0 ? 1 : 2);
    run_hooks hooks;
    hooks.on_request = [&](const request_record& r) { append_requests_csv_row(rows[i], r); };
    auto summary = run_to_end(run, hooks).summary;
    summary.wall_seconds = 0;
    summary.decode_token_steps_per_s = 0;
    summaries[i] = summary_json(summary);
  }
  EXPECT_FALSE(rows[0].empty());
  EXPECT_EQ(rows[0], rows[1]);
  EXPECT_EQ(summaries[0], summaries[1]);
}

// Accounting mode's exposure estimates the attention error data mode measures on the same run:
// within 20 % on the demo load (which climbs through q8 and q4).
TEST(Outcomes, ExposureTracksTheMeasuredAttentionErrorOnTheDemo) {
  run_description run;
  run.load_spec = "gen:rate=6,prompt=lognormal:700:0.5,output=uniform:500:0.6,duration=25,seed=1";
  run.options = test::tiny_options(16ull << 20, payload_mode::data);
  run.options.quality_every = 50;
  run.options.seed = 1;
  const auto s = run_to_end(run).summary;
  ASSERT_TRUE(std::isfinite(s.attention_error_measured));
  EXPECT_GT(s.attention_error_measured, 0.05) << "the demo reaches q4";
  EXPECT_NEAR(s.attention_error_exposure / s.attention_error_measured, 1.0, 0.2);
}

// The shipped factors are what `bench quality` measures (re-measured small, so a change to the
// kernels or the synthetic data that moves them fails here).
TEST(Outcomes, ShippedErrorFactorsAreMeasured) {
  const auto measured = measure_attention_error_factors({2, 2, 64}, 1024, 16, 0);
  for (std::size_t l = 0; l < kv_level_count; ++l) {
    EXPECT_NEAR(measured[l], attention_error_factors[l], attention_error_factors[l] * 1e-3) << l;
  }
}

// A closed loop of one client: each request is sent when the previous one finished, so every
// request sees an empty server (14 ms prefill + 10.08 ms decode) and the run takes 3 x 24.08 ms.
TEST(Outcomes, ClosedLoopSendsTheNextRequestWhenOneCompletes) {
  run_description run;
  run.load_spec = "gen:concurrency=1,prompt=fixed:100,output=fixed:2,count=3";
  run.options = test::tiny_options(4ull << 20, payload_mode::accounting);
  const auto c = run_collecting(run);
  ASSERT_EQ(c.records.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_NEAR(c.records[i].arrival_s, 0.02408 * static_cast<double>(i), 1e-12);
    EXPECT_NEAR(c.records[i].ttft_s(), 0.014, 1e-12);
    EXPECT_NEAR(c.records[i].e2e_s(), 0.02408, 1e-12);
  }
  EXPECT_NEAR(c.result.summary.sim_seconds, 3 * 0.02408, 1e-12);
}

// --max-concurrency on an open-loop load: the second request arrives while the first is in
// flight, waits at the client, and its latencies count from when it is sent (vLLM's benchmark).
TEST(Outcomes, MaxConcurrencyHoldsRequestsAtTheClient) {
  test::temp_dir dir;
  run_description run;
  run.load_spec = native_load(dir,
                              "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":100,\"output_tokens\":2}\n"
                              "{\"id\":1,\"arrival_s\":0.001,\"prompt_tokens\":100,\"output_tokens\":2}\n");
  run.options = test::tiny_options(4ull << 20, payload_mode::accounting);
  run.options.max_concurrency = 1;
  const auto c = run_collecting(run);
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_NEAR(c.records[1].arrival_s, 0.02408, 1e-12) << "sent when the first finished";
  EXPECT_NEAR(c.records[1].ttft_s(), 0.014, 1e-12);
  // Without the limit both run together: the second's prefill joins the first's decode step.
  run.options.max_concurrency = 0;
  const auto open = run_collecting(run);
  ASSERT_EQ(open.records.size(), 2u);
  EXPECT_NEAR(open.records[1].arrival_s, 0.001, 1e-12);
  EXPECT_GT(open.records[1].ttft_s(), 0.014);
}

}  // namespace
}  // namespace kvscope
