// kvscope's q3 level in whole runs and in the policy: the static family storing cold blocks at q3,
// the ewma controller reaching q3 only through its q3_threshold, and the export of such policies.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine_test_support.hpp"
#include "io/policy_file.hpp"
#include "policy/policy_controller.hpp"

namespace kvscope {
namespace {

using test::gen_load;

constexpr const char* q3_run_load = test::pressured_load;

engine_options static_q3_options(payload_mode payload) {
  engine_options o = test::tiny_options(4ull << 20, payload);
  o.policy.family = policy_family::fixed;
  o.policy.fixed_level = precision::q3;
  o.quality_every = 7;
  return o;
}

// The static family at q3: cold blocks are stored at q3, read back with measured error, and the
// exposure weighs their reads by q3's factor.
TEST(Q3Run, StaticPolicyStoresColdBlocksAtQ3) {
  engine e(static_q3_options(payload_mode::data), gen_load(q3_run_load));
  std::uint64_t q3_reads = 0;
  while (e.step()) {
    q3_reads += e.cache().pool().references()[ordinal(precision::q3)];
    EXPECT_EQ(e.cache().pool().references()[ordinal(precision::q4)], 0u);
  }
  EXPECT_GT(q3_reads, 0u);
  EXPECT_GT(e.totals().peak_bytes_per_level[ordinal(precision::q3)], 0u);
  const double reference = e.totals().attention_squared_reference[ordinal(precision::q3)];
  ASSERT_GT(reference, 0);
  const double error = std::sqrt(e.totals().attention_squared_error[ordinal(precision::q3)] / reference);
  EXPECT_GT(error, 0);
  EXPECT_LT(error, 0.6);
  EXPECT_EQ(e.cache().audit(), "");
}

// The same run in accounting mode holds more sequences' context in the same budget than at q4.
TEST(Q3Run, Q3HoldsMoreThanQ4InTheSameBudget) {
  std::uint64_t peak_blocks[2] = {};
  int i = 0;
  for (const precision level : {precision::q4, precision::q3}) {
    engine_options o = static_q3_options(payload_mode::accounting);
    o.policy.fixed_level = level;
    o.budget_bytes = 1ull << 20;
    engine e(o, gen_load(q3_run_load));
    while (e.step()) {
      peak_blocks[i] = std::max(peak_blocks[i], e.cache().pool().usage().tiers[ordinal(level)].blocks);
    }
    ++i;
  }
  EXPECT_GT(peak_blocks[1], peak_blocks[0]);
}

policy_config q3_controller(bool with_key) {
  policy_config c;
  c.q8_threshold = 0.3f;
  c.q4_threshold = 0.5f;
  c.max_level = precision::q3;
  if (with_key) c.q3_threshold = 0.7f;
  return c;
}

TEST(Q3Policy, TheControllerReachesQ3OnlyWithItsKey) {
  policy_controller with(q3_controller(true)), without(q3_controller(false));
  for (int i = 0; i < 50; ++i) {
    EXPECT_NE(*without.observe(1.0), precision::q3);
    ASSERT_TRUE(with.observe(1.0));
  }
  EXPECT_EQ(with.level(), precision::q3);
  EXPECT_EQ(without.level(), precision::q4);
  // Held through the band: q3 until the EWMA falls below q3 - h, then the reference's rule.
  policy_controller band(q3_controller(true));
  EXPECT_EQ(*band.observe(0.72), precision::q3);
  EXPECT_EQ(*band.observe(0.66), precision::q3);  // ewma 0.708
  while (band.ewma() >= 0.65) ASSERT_TRUE(band.observe(0.0));
  EXPECT_NE(band.level(), precision::q3);
}

TEST(Q3Policy, TheKeyIsCheckedAndOffByDefault) {
  EXPECT_FALSE(policy_config{}.q3_threshold);
  EXPECT_FALSE(reaches_q3(policy_config{}));
  policy_config c = q3_controller(true);
  EXPECT_EQ(validate(c), std::nullopt);
  c.q3_threshold = 0.4f;
  EXPECT_EQ(validate(c), "q3_threshold must be >= q4_threshold");
  c.q3_threshold = 0.9f;
  c.max_level = precision::q4;
  EXPECT_EQ(validate(c), "q3_threshold needs max_level q3");
  EXPECT_EQ(describe(q3_controller(true)),
            "q8_threshold=0.3 q4_threshold=0.5 hysteresis=0.05 ewma_alpha=0.2 levels=fp16..q3 q3_threshold=0.7");
}

// A whole engine run under pressure: the ewma family reaches q3 with the key and never without.
TEST(Q3Policy, AnEngineRunReachesQ3OnlyWithTheKey) {
  for (const bool key : {true, false}) {
    engine_options o = test::tiny_options(1ull << 20, payload_mode::accounting);
    o.policy = q3_controller(key);
    o.policy.q3_threshold = key ? std::optional<float>(0.6f) : std::nullopt;
    engine e(o, gen_load(q3_run_load));
    bool reached = false;
    while (e.step()) reached = reached || e.last_metrics().level == precision::q3;
    EXPECT_EQ(reached, key);
    EXPECT_EQ(e.cache().pool().usage().tiers[ordinal(precision::q3)].blocks > 0 || reached, key);
  }
}

TEST(Q3Export, ANonStrictExportCarriesTheNote) {
  policy_config c;
  c.family = policy_family::fixed;
  c.fixed_level = precision::q3;
  const std::string json = serialize_policy_config(c, config_format::json);
  EXPECT_NE(json.find(std::string(q3_export_note)), std::string::npos);
  const std::string toml = serialize_policy_config(c, config_format::toml);
  EXPECT_EQ(toml.rfind("# " + std::string(q3_export_note), 0), 0u);
  EXPECT_EQ(*parse_policy_config(json, config_format::json, "t.json"), c);
  EXPECT_EQ(*parse_policy_config(toml, config_format::toml, "t.toml"), c);
  const policy_config ewma = q3_controller(true);
  EXPECT_EQ(*parse_policy_config(serialize_policy_config(ewma, config_format::toml), config_format::toml, "t"),
            ewma);
  // What the reference runtime runs carries no note and no q3 key.
  const std::string plain = serialize_policy_config(policy_config{}, config_format::json);
  EXPECT_EQ(plain.find("q3"), std::string::npos);
}

TEST(Q3Export, AStrictExportRefusesIt) {
  const auto path = std::filesystem::temp_directory_path() / "kvscope_q3_strict_export.json";
  std::filesystem::remove(path);
  const auto refused = write_policy_config(path, q3_controller(true), nullptr, export_check::strict);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("reference runtime stops at q4"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(write_policy_config(path, policy_config{}, nullptr, export_check::strict));
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kvscope
