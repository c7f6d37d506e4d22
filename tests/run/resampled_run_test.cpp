// A run whose arrivals are resampled: open_run_load applies it before the time scaling, the
// summary says so, and a session keeps it with the load (older sessions read as keep).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine_test_support.hpp"
#include "io/session_file.hpp"
#include "load/load_error.hpp"
#include "run/option_table.hpp"
#include "run/run_service.hpp"

namespace kvscope {
namespace {

run_description resampled_small_run(const std::string& arrivals) {
  run_description run;
  run.load_spec = "gen:rate=30,burstiness=0.2,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=200,seed=9";
  run.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  run.options.arrivals = arrivals;
  return run;
}

std::vector<double> arrivals_of_run(const run_description& run) {
  std::vector<double> times;
  auto source = open_run_load(run);
  request r;
  while (source->next(r)) times.push_back(r.arrival_s);
  return times;
}

TEST(ResampledRun, OpenRunLoadResamplesThenScalesTheTimes) {
  const auto own = arrivals_of_run(resampled_small_run("keep"));
  const auto resampled = arrivals_of_run(resampled_small_run("gamma:2"));
  ASSERT_EQ(resampled.size(), own.size());
  EXPECT_NE(resampled, own);
  auto faster = resampled_small_run("gamma:2");
  faster.arrival_time_scale = 0.5;
  const auto scaled = arrivals_of_run(faster);
  ASSERT_EQ(scaled.size(), resampled.size());
  for (std::size_t i = 0; i < scaled.size(); ++i) EXPECT_EQ(scaled[i], resampled[i] * 0.5) << i;
  // The seed of the options draws the gaps.
  auto reseeded = resampled_small_run("gamma:2");
  reseeded.options.seed = 5;
  EXPECT_NE(arrivals_of_run(reseeded), resampled);
  // A value set around the option table's check is still refused, naming what is expected.
  EXPECT_THROW((void)open_run_load(resampled_small_run("gamma:zero")), load_error);
}

TEST(ResampledRun, AScaledClosedLoopStaysClosed) {
  run_description run;
  run.load_spec = "gen:concurrency=2,prompt=fixed:100,output=fixed:50,count=40,seed=1";
  run.arrival_time_scale = 0.5;
  EXPECT_EQ(open_run_load(run)->client_concurrency(), 2u);
  // Resampling a closed loop is refused: its clients, not arrival times, pace it.
  run.options.arrivals = "poisson";
  EXPECT_THROW((void)open_run_load(run), load_error);
}

TEST(ResampledRun, TheSummarySaysHowTheArrivalsWereMade) {
  auto run = resampled_small_run("gamma:2");
  EXPECT_EQ(run_to_end(run).summary.load,
            run.load_spec + ", arrivals resampled as Gamma (CV 2) at the same mean rate");
  run.arrival_time_scale = 0.5;
  run.options.arrivals = "poisson";
  EXPECT_EQ(run_to_end(run).summary.load,
            run.load_spec + " at 2x its arrival rate, arrivals resampled as Poisson at that mean rate");
  run.options.arrivals = "keep";
  EXPECT_EQ(run_to_end(run).summary.load,
            run.load_spec + " at 2x its arrival rate (arrival times scaled, bursts kept)");
}

TEST(ResampledRun, TheOptionTableDeclaresItOnceForTheCommandLine) {
  const auto* spec = find_option("arrivals");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->places & in_simulate);
  EXPECT_FALSE(spec->places & in_session);  // kept with the load instead
  engine_options o;
  ASSERT_TRUE(set_option(o, "arrivals", "gamma:0.5").has_value());
  EXPECT_EQ(o.arrivals, "gamma:0.5");
  const auto bad = set_option(o, "arrivals", "gamma:0");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().rfind("--arrivals: expected keep, poisson or gamma:CV", 0), 0u) << bad.error();
  EXPECT_EQ(differing_flags(o), std::vector<std::string>{"--arrivals gamma:0.5"});
}

TEST(ResampledRun, ASessionKeepsTheArrivalsWithTheLoad) {
  const auto run = resampled_small_run("gamma:3");
  const std::string text = session_to_json(run);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["load"]["arrivals"], "gamma:3");
  const auto back = session_from_json(text, "mem");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->options.arrivals, "gamma:3");
  EXPECT_EQ(session_to_json(*back), text);
  EXPECT_EQ(run_to_end(*back).summary.load, run_to_end(run).summary.load);
  EXPECT_EQ(arrivals_of_run(*back), arrivals_of_run(run));
  // A run with its own arrivals writes no key, so such sessions are as before; one without the
  // key (every older session) reads as keep.
  const std::string plain = session_to_json(resampled_small_run("keep"));
  EXPECT_EQ(plain.find("arrivals\""), std::string::npos) << plain;
  const auto old = session_from_json(plain, "mem");
  ASSERT_TRUE(old.has_value()) << old.error();
  EXPECT_EQ(old->options.arrivals, "keep");
  // A bad value names the field and what it expects.
  auto broken = j;
  broken["load"]["arrivals"] = "gamma:-1";
  const auto refused = session_from_json(broken.dump(), "s.json");
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().find("s.json: field 'load.arrivals': expected keep, poisson or gamma:CV"),
            std::string::npos)
      << refused.error();
}

}  // namespace
}  // namespace kvscope
