// Why requests missed their SLOs, on loads built to show each cause: the report names the cause
// built in, every request's parts add up to its latencies, and the lever it names, applied,
// lifts attainment (docs/why-requests-miss.md).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine_test_support.hpp"
#include "run/run_service.hpp"
#include "util/byte_size.hpp"

namespace kvscope {
namespace {

struct outcome {
  run_summary summary;
  std::vector<request_record> records;
};

outcome run(engine_options o, const std::string& load) {
  outcome out;
  run_hooks hooks;
  hooks.on_request = [&out](const request_record& r) { out.records.push_back(r); };
  out.summary = run_to_end(o, test::gen_load(load), hooks).summary;
  return out;
}

engine_options h100(const std::string& budget_or_auto, const std::string& slo) {
  engine_options o;
  o.model = "llama3-8b";
  o.gpu = "h100";
  o.budget_bytes = budget_or_auto == "auto" ? 0 : *parse_byte_size(budget_or_auto);
  o.slo = slo;
  return o;
}

miss_cause main_cause(const outcome& r) { return r.summary.levers.cause; }
double attainment(const outcome& r) { return r.summary.service.slo_attainment; }
std::uint64_t misses(const outcome& r, miss_cause c) {
  return r.summary.service.misses.requests[static_cast<std::size_t>(c)];
}

// Every finished request's TTFT parts add up to its TTFT and its decode parts to finish - first
// token; no part is negative.
void expect_parts_add_up(const outcome& r) {
  std::size_t checked = 0;
  for (const request_record& x : r.records) {
    if (!x.finished()) continue;
    ++checked;
    ASSERT_NEAR(x.parts.ttft_sum(), x.ttft_s(), 1e-9 * (1 + x.ttft_s())) << "request " << x.request_id;
    ASSERT_NEAR(x.parts.decode_sum(), x.finish_s - x.first_token_s, 1e-9 * (1 + x.e2e_s()))
        << "request " << x.request_id;
    for (const auto& c : latency_part_columns) ASSERT_GE(x.parts.*c.member, -1e-9) << c.key;
  }
  EXPECT_GT(checked, 0u);
}

TEST(WhyMissed, PartsAddUpOnRealTraces) {
  const std::string data = KVSCOPE_TEST_DATA_DIR;
  for (const std::string trace : {"/azure_conv_500.csv", "/mooncake_200.jsonl"}) {
    SCOPED_TRACE(trace);
    expect_parts_add_up(run(h100("auto", "ttft=1,tpot=0.05"), data + trace));
    expect_parts_add_up(run(h100("1GiB", "ttft=1,tpot=0.05"), data + trace));
  }
  // A cache this small preempts: waiting again and recomputing must add up too.
  for (const std::string& load : {data + "/azure_conv_500.csv",
                                 std::string("gen:rate=8,prompt=lognormal:1000:0.5,output=uniform:300:0.5,duration=60,seed=2")}) {
    SCOPED_TRACE(load);
    const outcome tight = run(h100("1GiB", "ttft=1,tpot=0.05"), load);
    EXPECT_GT(tight.summary.preemptions, 0u);
    expect_parts_add_up(tight);
  }
  // Multi-step scheduling streams tokens at the schedule's end: the parts still add up.
  engine_options multi = h100("auto", "ttft=1,tpot=0.05");
  multi.scheduler.num_scheduler_steps = 8;
  expect_parts_add_up(run(multi, data + "/azure_conv_500.csv"));
  // With a client concurrency limit, the wait at the client stays outside the latencies.
  engine_options closed = h100("4GiB", "ttft=1");
  closed.max_concurrency = 4;
  const outcome c = run(closed, data + "/azure_conv_500.csv");
  expect_parts_add_up(c);
  double waited = 0;
  for (const auto& x : c.records) waited += x.client_wait_s;
  EXPECT_GT(waited, 0);
}

TEST(WhyMissed, LongPromptsOverShortOutputsInterfereWithDecode) {
  const std::string load = "gen:rate=3,prompt=lognormal:4000:0.8,output=uniform:40:0.5,duration=120,seed=1";
  engine_options o = h100("auto", "ttft=2,tpot=0.03");
  const outcome before = run(o, load);
  expect_parts_add_up(before);
  EXPECT_EQ(main_cause(before), miss_cause::prefill_interference);
  EXPECT_NE(before.summary.levers.space.find("max-num-batched-tokens="), std::string::npos);
  EXPECT_FALSE(before.summary.levers.kv_note.empty());  // the cache never held anyone back
  o.scheduler.max_num_batched_tokens = 1024;
  const outcome after = run(o, load);
  EXPECT_GT(attainment(after), attainment(before) + 0.05);
  EXPECT_LT(misses(after, miss_cause::prefill_interference), misses(before, miss_cause::prefill_interference));
}

// Without chunked prefill (vLLM V0's default) the decodes wait out whole prompts: the report
// says so, names chunked prefill as the lever, and turning it on lifts attainment.
TEST(WhyMissed, UnchunkedPromptsStallTheDecodes) {
  const std::string load = "gen:rate=3,prompt=lognormal:4000:0.8,output=uniform:40:0.5,duration=120,seed=1";
  engine_options o = h100("auto", "ttft=2,tpot=0.03");
  o.scheduler.chunked_prefill = false;
  // Long enough for every prompt of the load (none rejected), with V0's token budget to match.
  o.max_model_len = 32768;
  o.scheduler.max_num_batched_tokens = 32768;
  const outcome before = run(o, load);
  expect_parts_add_up(before);
  EXPECT_EQ(main_cause(before), miss_cause::prefill_interference);
  EXPECT_NE(before.summary.levers.advice.find("chunked prefill is off"), std::string::npos);
  EXPECT_NE(before.summary.levers.space.find("chunked-prefill=false,true"), std::string::npos);
  o.scheduler.chunked_prefill = true;
  o.scheduler.max_num_batched_tokens = 1024;
  const outcome after = run(o, load);
  EXPECT_GT(attainment(after), attainment(before) + 0.05);
}

TEST(WhyMissed, ACacheTooSmallQueuesForMemory) {
  const std::string load = "gen:rate=8,prompt=lognormal:1000:0.5,output=uniform:300:0.5,duration=60,seed=2";
  engine_options o = h100("1GiB", "ttft=1,tpot=0.05");
  const outcome before = run(o, load);
  expect_parts_add_up(before);
  EXPECT_EQ(main_cause(before), miss_cause::kv_memory);
  EXPECT_NE(before.summary.levers.space.find("budget=1GiB,1.5GiB,2GiB,3GiB"), std::string::npos);
  EXPECT_TRUE(before.summary.levers.kv_note.empty());
  o.budget_bytes = 4ull << 30;
  const outcome after = run(o, load);
  EXPECT_GT(attainment(after), attainment(before) + 0.5);
}

TEST(WhyMissed, MaxNumSeqsBinding) {
  const std::string load = "gen:rate=8,prompt=lognormal:300:0.5,output=uniform:200:0.5,duration=60,seed=3";
  engine_options o = h100("8GiB", "ttft=0.5,tpot=0.05");
  o.scheduler.max_num_seqs = 4;
  const outcome before = run(o, load);
  expect_parts_add_up(before);
  EXPECT_EQ(main_cause(before), miss_cause::batch_slots);
  EXPECT_EQ(before.summary.levers.space, "max-num-seqs=4,8,16,32,64");
  o.scheduler.max_num_seqs = 64;
  const outcome after = run(o, load);
  EXPECT_GT(attainment(after), attainment(before) + 0.5);
}

TEST(WhyMissed, APromptLongerThanTheTtftSloAllowsIsInfeasibleAlone) {
  // 7,000 tokens of prefill take longer than 0.2 s on an H100 even with nothing else running.
  const outcome r = run(h100("8GiB", "ttft=0.2,tpot=0.05"), "gen:rate=0.5,prompt=fixed:7000,output=fixed:20,duration=60,seed=3");
  EXPECT_EQ(main_cause(r), miss_cause::infeasible_alone);
  EXPECT_EQ(misses(r, miss_cause::infeasible_alone), r.summary.service.misses.missed);
  for (const auto& x : r.records) EXPECT_GT(x.alone_ttft_s, 0.2);
  // The same prompts with a TTFT they can meet alone: nothing is infeasible.
  const outcome loose = run(h100("8GiB", "ttft=2,tpot=0.05"), "gen:rate=0.5,prompt=fixed:7000,output=fixed:20,duration=60,seed=3");
  EXPECT_EQ(misses(loose, miss_cause::infeasible_alone), 0u);
}

// Long prompts arriving faster than an H100 can prefill them: the backlog grows for the whole
// load. The report says the load outruns the server (not the token budget), and more GPUs help.
TEST(WhyMissed, ALoadBeyondTheServerIsOverloaded) {
  const std::string load = "gen:rate=6,prompt=lognormal:6000:0.5,output=uniform:50:0.5,duration=60,seed=4";
  engine_options o = h100("auto", "ttft=2,tpot=0.1");
  const outcome before = run(o, load);
  expect_parts_add_up(before);
  EXPECT_TRUE(before.summary.levers.overloaded);
  EXPECT_GT(before.summary.demand.ratio(), 1.1);
  EXPECT_GT(before.summary.demand.backlog_share(), 0.1);
  EXPECT_EQ(before.summary.levers.space, "tp=1,2,4");
  EXPECT_NE(before.summary.levers.advice.find("outruns this server"), std::string::npos);
  // What the scheduler's lever would try does not lift it; the capacity lever does.
  engine_options larger_chunk = o;
  larger_chunk.scheduler.max_num_batched_tokens = 4 * o.scheduler.max_num_batched_tokens;
  EXPECT_LT(attainment(run(larger_chunk, load)), attainment(before) + 0.05);
  o.tensor_parallel = 4;
  const outcome after = run(o, load);
  EXPECT_GT(attainment(after), attainment(before) + 0.5);
  EXPECT_FALSE(after.summary.levers.overloaded);
}

// The Mooncake sample's long prompts at its own rate: more GPU time than the load lasts.
TEST(WhyMissed, TheMooncakeSampleIsOverloadedOnOneH100) {
  const outcome r = run(h100("auto", "ttft=2,tpot=0.1"), std::string(KVSCOPE_TEST_DATA_DIR) + "/mooncake_200.jsonl");
  EXPECT_TRUE(r.summary.levers.overloaded);
  EXPECT_GT(r.summary.demand.ratio(), 1.1);
}

// A light load whose long outputs keep decoding after the last arrival: steps run past the span
// (load_demand above 1.1) but nothing waits, so it is not overloaded.
TEST(WhyMissed, StepsPastTheLastArrivalWithoutABacklogAreNotOverload) {
  const outcome r = run(h100("auto", "ttft=1,tpot=0.005"), "gen:rate=1,prompt=fixed:200,output=fixed:2000,duration=30,seed=5");
  EXPECT_GT(r.summary.service.misses.missed, 0u);
  EXPECT_GT(r.summary.demand.ratio(), 1.1);
  EXPECT_LT(r.summary.demand.backlog_share(), 0.1);
  EXPECT_FALSE(r.summary.demand.overloaded());
  EXPECT_FALSE(r.summary.levers.overloaded);
}

// Every request at once is a burst, not a rate: no span to outrun, so never "overloaded".
TEST(WhyMissed, ABurstAtOnceIsNotCalledOverloaded) {
  const outcome r = run(h100("auto", "ttft=0.5,tpot=0.05"), "gen:concurrency=200,prompt=fixed:4000,output=fixed:50,count=200,seed=1");
  EXPECT_GT(r.summary.service.misses.missed, 0u);
  EXPECT_FALSE(r.summary.levers.overloaded);
  EXPECT_TRUE(std::isnan(r.summary.demand.ratio()));
}

TEST(WhyMissed, NothingMissedNothingToSay) {
  const outcome r = run(h100("8GiB", "ttft=10,tpot=1"), "gen:rate=2,prompt=fixed:100,output=fixed:20,count=20,seed=3");
  EXPECT_EQ(r.summary.service.misses.missed, 0u);
  EXPECT_TRUE(r.summary.levers.advice.empty());
}

}  // namespace
}  // namespace kvscope
