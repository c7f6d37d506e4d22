// JSON files given as the load that are no trace: a policy config, a `vllm bench serve` result,
// a sweep or tune provenance, a session. Each is named, with how to use it, instead of a parse
// error about its first line.
#include <gtest/gtest.h>

#include "load/json_file_kind.hpp"
#include "load_test_util.hpp"
#include "util/text_file.hpp"

namespace kvscope {
namespace {

using test::error_reading;

// A policy config as kvscope writes it (pretty-printed: its first line is a lone "{").
constexpr const char* policy_json =
    "{\n  \"q8_threshold\": 0.8,\n  \"q4_threshold\": 0.95,\n  \"hysteresis\": 0.05,\n"
    "  \"ewma_alpha\": 0.2,\n  \"min_level\": \"fp16\",\n  \"max_level\": \"q4\"\n}\n";

TEST(JsonFileKind, EachKindByItsKeys) {
  EXPECT_EQ(classify_json_file(policy_json)->kind, json_file_kind::policy_config);
  const auto bench = read_text_file(test::data_path("vllm_bench_llama8b_h100_c1.json"));
  ASSERT_TRUE(bench.has_value());
  EXPECT_EQ(classify_json_file(*bench)->kind, json_file_kind::vllm_bench_result);
  const auto sweep = classify_json_file(
      R"({"format": "kvscope sweep provenance 1", "tool": "kvscope-cli sweep", "load": {"spec": "t.csv"}})");
  ASSERT_TRUE(sweep.has_value());
  EXPECT_EQ(sweep->kind, json_file_kind::sweep_provenance);
  EXPECT_EQ(sweep->load, "t.csv");
  EXPECT_EQ(classify_json_file(R"({"tool": "kvscope-cli tune", "load": {"spec": "gen:count=3"}})")->kind,
            json_file_kind::tune_provenance);
  EXPECT_EQ(classify_json_file(R"({"kvscope_session": 3, "load": {"spec": "t.csv"}})")->kind,
            json_file_kind::session);
  EXPECT_FALSE(classify_json_file(R"({"a": 1})"));
  EXPECT_FALSE(classify_json_file("[1, 2]"));
  EXPECT_FALSE(classify_json_file("{\"a\": "));
}

TEST(JsonFileKind, APolicyConfigAsTheLoadSaysToGiveItAsThePolicy) {
  EXPECT_EQ(error_reading(policy_json),
            "t.csv: a kvscope policy config, not a trace; give it as the policy (--policy t.csv) and a "
            "trace or gen: spec as the load");
}

TEST(JsonFileKind, ABenchResultAsTheLoadSaysBenchColon) {
  const auto bench = read_text_file(test::data_path("vllm_bench_llama8b_h100_c1.json"));
  ASSERT_TRUE(bench.has_value());
  EXPECT_EQ(error_reading(*bench),
            "t.csv: a `vllm bench serve` result, not a trace; load it as bench:t.csv (its lengths, sent "
            "as the benchmark sent them)");
  // The file itself, by path, as --load gives it.
  try {
    auto source = open_load(test::data_path("vllm_bench_llama8b_h100_c1.json"), load_format::automatic, {});
    FAIL();
  } catch (const load_error& e) {
    EXPECT_NE(std::string(e.what()).find("load it as bench:"), std::string::npos) << e.what();
  }
}

TEST(JsonFileKind, ProvenancesAndSessionsNameTheirLoad) {
  EXPECT_EQ(error_reading(R"({"format": "kvscope sweep provenance 1", "load": {"spec": "trace.csv"}})" "\n"),
            "t.csv: the provenance of a sweep CSV, not a trace; its load was trace.csv");
  EXPECT_EQ(error_reading("{\n\"kvscope_session\": 3,\n\"load\": {\"spec\": \"gen:count=3\"}\n}\n"),
            "t.csv: a kvscope session (a run to replay), not a trace; replay it with kvscope-cli replay "
            "--session t.csv; its load was gen:count=3");
  const json_file_info tune{json_file_kind::tune_provenance, "trace.csv"};
  EXPECT_EQ(misplaced_json_file_message(tune, "best.json.provenance.json", json_file_role::policy),
            "best.json.provenance.json: the provenance of a tuned policy config, not a policy config; the "
            "tuned config is best.json");
}

TEST(JsonFileKind, OtherJsonKeepsItsMessage) {
  EXPECT_EQ(error_reading("{\n  \"a\": 1\n}\n"),
            "t.csv:1: the first line starts like JSON but is not a valid JSON object");
  EXPECT_EQ(error_reading("{\"a\": 1}\n{\"a\": 2}\n"),
            "t.csv:1: JSON lines of an unknown kind (neither a kvscope-load header nor a Mooncake "
            "row with timestamp, input_length, output_length); use --format");
}

}  // namespace
}  // namespace kvscope
