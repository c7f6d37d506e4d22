// The gen: spec string: defaults, round trip, and a clear error for every wrong key or value.
#include <gtest/gtest.h>

#include "load/generator_spec.hpp"

namespace kvscope {
namespace {

std::string error_of(std::string_view text) {
  auto spec = parse_generator_spec(text);
  EXPECT_FALSE(spec) << text << " parsed";
  return spec ? std::string() : spec.error();
}

TEST(GeneratorSpec, ParsesTheIssueExample) {
  auto spec = parse_generator_spec(
      "gen:rate=4,burstiness=0.5,prompt=lognormal:1000:0.8,output=uniform:200:0.5,duration=600,"
      "seed=7");
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->rate, 4.0);
  EXPECT_EQ(spec->burstiness, 0.5);
  EXPECT_EQ(spec->prompt, (length_dist{length_dist::kind::lognormal, 1000, 0.8}));
  EXPECT_EQ(spec->output, (length_dist{length_dist::kind::uniform, 200, 0.5}));
  EXPECT_EQ(spec->duration_s, 600.0);
  EXPECT_FALSE(spec->count);
  EXPECT_EQ(spec->seed, 7u);
  EXPECT_EQ(spec->prefix_groups, 0u);
  EXPECT_EQ(spec->block_size, 16u);
}

TEST(GeneratorSpec, DefaultsAndPrefixOptionalGenPrefix) {
  auto spec = parse_generator_spec("count=10");
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->rate, 1.0);
  EXPECT_EQ(spec->burstiness, 1.0);
  EXPECT_EQ(spec->prompt, (length_dist{length_dist::kind::fixed, 512, 0}));
  EXPECT_EQ(spec->output, (length_dist{length_dist::kind::fixed, 128, 0}));
  EXPECT_EQ(spec->count, 10u);
}

TEST(GeneratorSpec, CanonicalSpellingRoundTrips) {
  for (const char* text :
       {"gen:count=10", "gen:rate=0.3,burstiness=4,prompt=zipf:1.1:8192,output=77,duration=1e4",
        "gen:rate=12.5,prompt=uniform:300:1,count=5,prefix_groups=3,prefix_len=1024,prefix_zipf=0.9,"
        "block=32,seed=18446744073709551615"}) {
    auto spec = parse_generator_spec(text);
    ASSERT_TRUE(spec) << text << ": " << spec.error();
    const std::string canonical = to_string(*spec);
    auto again = parse_generator_spec(canonical);
    ASSERT_TRUE(again) << canonical << ": " << again.error();
    EXPECT_EQ(*spec, *again) << canonical;
    EXPECT_EQ(to_string(*again), canonical);
  }
}

TEST(GeneratorSpec, UnknownKeysAreNamed) {
  EXPECT_EQ(error_of("gen:rat=4,count=1"),
            "gen spec: unknown key 'rat' (known: rate, burstiness, concurrency, prompt, output, "
            "duration, count, seed, prefix_groups, prefix_len, prefix_zipf, block)");
}

// A closed loop: its clients pace it, so no rate or duration; count says when it ends.
TEST(GeneratorSpec, ConcurrencyIsAClosedLoop) {
  const auto spec = parse_generator_spec("gen:concurrency=4,prompt=fixed:100,count=10");
  ASSERT_TRUE(spec.has_value()) << spec.error();
  EXPECT_EQ(spec->concurrency, 4u);
  EXPECT_EQ(parse_generator_spec(to_string(*spec)).value(), *spec);
  EXPECT_EQ(to_string(*spec).rfind("gen:concurrency=4,prompt=fixed:100,", 0), 0u) << to_string(*spec);
  EXPECT_EQ(error_of("gen:concurrency=4,rate=2,count=10"), "gen spec: concurrency= is a closed loop; drop rate=");
  EXPECT_EQ(error_of("gen:concurrency=4,duration=10"), "gen spec: concurrency= is a closed loop; drop duration=");
  EXPECT_EQ(error_of("gen:concurrency=4,seed=1"), "gen spec: concurrency= needs count= (requests in total)");
}

TEST(GeneratorSpec, BadValuesNameKeyAndValue) {
  EXPECT_EQ(error_of("gen:rate=-3,count=1"),
            "gen spec: rate='-3': must be in (0, 1e9] requests per second");
  EXPECT_EQ(error_of("gen:rate=abc,count=1"), "gen spec: rate='abc': is not a number");
  EXPECT_EQ(error_of("gen:rate=0,count=1"),
            "gen spec: rate='0': must be in (0, 1e9] requests per second");
  EXPECT_EQ(error_of("gen:burstiness=0,count=1"), "gen spec: burstiness='0': must be in [0.01, 1000]");
  EXPECT_EQ(error_of("gen:count=2.5"), "gen spec: count='2.5': is not a whole number");
  EXPECT_EQ(error_of("gen:count=0"), "gen spec: count='0': must be a whole number in [1, 9007199254740992]");
  EXPECT_EQ(error_of("gen:duration=nan"), "gen spec: duration='nan': is not a finite number");
  EXPECT_EQ(error_of("gen:seed=-1,count=1"),
            "gen spec: seed='-1': must be a whole number in [0, 18446744073709551615]");
  EXPECT_EQ(error_of("gen:count="), "gen spec: count='': has no value");
  EXPECT_EQ(error_of("gen:count=1,block=0"), "gen spec: block='0': must be a whole number in [1, 65536]");
}

TEST(GeneratorSpec, BadDistributionsSayWhatIsExpected) {
  EXPECT_EQ(error_of("gen:prompt=normal:5:1,count=1"),
            "gen spec: prompt: unknown distribution 'normal' (fixed:N, uniform:MEAN:RATIO, "
            "lognormal:MEDIAN:SIGMA, zipf:S:MAX, or N)");
  EXPECT_EQ(error_of("gen:prompt=lognormal:1000,count=1"),
            "gen spec: prompt: 'lognormal:1000': expected lognormal:MEDIAN:SIGMA");
  EXPECT_EQ(error_of("gen:output=uniform:200:1.5,count=1"),
            "gen spec: output: range ratio '1.5' must be in [0, 1]");
  EXPECT_EQ(error_of("gen:output=0,count=1"),
            "gen spec: output: length '0' must be a whole number in [1, 16777216]");
  EXPECT_EQ(error_of("gen:output=fixed,count=1"), "gen spec: output: 'fixed': expected fixed:N");
  EXPECT_EQ(error_of("gen:prompt=zipf:0:100,count=1"),
            "gen spec: prompt: exponent '0' must be in (0, 100]");
  EXPECT_EQ(error_of("gen:prompt=lognormal:x:1,count=1"),
            "gen spec: prompt: median 'x' is not a number");
}

TEST(GeneratorSpec, StructuralMistakes) {
  EXPECT_EQ(error_of("gen:"), "gen spec is empty: give at least duration= or count=");
  EXPECT_EQ(error_of("gen:rate=4"), "gen spec: give duration= (seconds) or count= (requests), or both");
  EXPECT_EQ(error_of("gen:count=1,count=2"), "gen spec: key 'count' given twice");
  EXPECT_EQ(error_of("gen:count=1,"), "gen spec: trailing ',' (nothing after it)");
  EXPECT_EQ(error_of("gen:count=1,rate"), "gen spec: 'rate' is not key=value");
  EXPECT_EQ(error_of("gen:count=1,prefix_groups=4"),
            "gen spec: prefix_groups needs prefix_len= (shared prefix tokens)");
  EXPECT_EQ(error_of("gen:count=1,prefix_len=4"), "gen spec: prefix_len and prefix_zipf need prefix_groups=");
}

}  // namespace
}  // namespace kvscope
