#include <gtest/gtest.h>

#include "io/session_file.hpp"
#include "run/run_service.hpp"
#include "engine_test_support.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

run_description sample_session() {
  run_description s;
  s.load_spec = "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=200,seed=9";
  s.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  s.options.scheduler.watermark = 0.02;
  s.options.timing.base_s = 0.0125;
  s.commands = {{0, play_command{}},
                {40, reconfigure_command{*policy_preset("aggressive")}},
                {90, speed_command{12.5}},
                {120, reconfigure_command{*policy_preset("fp16_only")}},
                {150, step_command{3}}};
  return s;
}

TEST(Session, JsonRoundTripIsLossless) {
  const auto s = sample_session();
  const auto text = session_to_json(s);
  const auto back = session_from_json(text, "mem");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(session_to_json(*back), text);
  EXPECT_EQ(back->options.policy, s.options.policy);
  EXPECT_EQ(back->commands.size(), 5u);
}

TEST(Session, ReplayGivesIdenticalMetrics) {
  const auto s = sample_session();
  // Live: apply the commands by hand at their steps.
  std::vector<std::string> live;
  {
    engine e(s.options, open_run_load(s));
    std::size_t next = 0;
    while (true) {
      while (next < s.commands.size() && s.commands[next].step == e.steps_done()) {
        if (auto* r = std::get_if<reconfigure_command>(&s.commands[next].command)) {
          ASSERT_TRUE(e.reconfigure(r->config).has_value());
        }
        ++next;
      }
      if (!e.step()) break;
      live.push_back(metrics_csv_row(e.last_metrics()));
    }
  }
  test::temp_dir dir;
  ASSERT_TRUE(write_session(dir.file("s.json"), s).has_value());
  const auto loaded = read_session(dir.file("s.json"));
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  std::vector<std::string> replayed;
  (void)run_to_end(*loaded, [&](const engine& e) { replayed.push_back(metrics_csv_row(e.last_metrics())); });
  EXPECT_EQ(replayed, live);
}

TEST(Session, ReplayStopsAtTheSavedStepCount) {
  auto s = sample_session();
  s.steps = 77;
  s.commands.resize(2);
  const auto e = run_to_end(s).final_engine;
  EXPECT_EQ(e->steps_done(), 77u);
}

TEST(Session, BadFilesNameTheField) {
  EXPECT_EQ(session_from_json("{}", "f").error(), "f: field 'kvscope_session': expected version 1 to 3, got 0");
  auto text = session_to_json(sample_session());
  auto bad = text;
  bad.replace(bad.find("\"budget_bytes\""), 14, "\"budget_byte\"");
  EXPECT_EQ(session_from_json(bad, "f").error(), "f: field 'options.budget_byte': unknown key");
  bad = text;
  bad.replace(bad.find("\"tiny\""), 6, "\"huge\"");
  EXPECT_EQ(session_from_json(bad, "f").error(),
            "f: field 'options.model': unknown model 'huge' (built-in: tiny, llama3-8b, llama3-70b, "
            "qwen3-8b, qwen3-14b, qwen3-32b, mistral-7b; or a config.json path ending in .json)");
  bad = text;
  bad.replace(bad.find("\"speed\""), 7, "\"warp\"");
  EXPECT_EQ(session_from_json(bad, "f").error(), "f: field 'commands[2].type': unknown command 'warp'");
  EXPECT_NE(session_from_json("{", "f").error().find("f: invalid JSON"), std::string::npos);
}

TEST(Session, ByteOrderMarkIsSkipped) {
  const auto text = session_to_json(sample_session());
  const auto back = session_from_json("\xEF\xBB\xBF" + text, "f");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(session_to_json(*back), text);
}

TEST(Session, DuplicateKeysAndHugeNumbersAreRefusedByName) {
  const auto text = session_to_json(sample_session());
  auto bad = text;
  bad.replace(bad.find("\"seed\""), 6, "\"seed\": 1, \"seed\"");
  EXPECT_EQ(session_from_json(bad, "f").error(), "f: duplicate key 'options.seed'");
  bad = text;
  bad.replace(bad.find("\"speed\""), 7, "\"speed\", \"type\": \"speed\"");
  EXPECT_EQ(session_from_json(bad, "f").error(), "f: duplicate key 'commands[2].type'");
  bad = text;
  const auto at = bad.find("\"steps_per_second\": ") + 20;
  bad.replace(at, bad.find_first_of(",\n}", at) - at, "1e400");
  const auto error = session_from_json(bad, "f").error();
  EXPECT_EQ(error.rfind("f:", 0), 0u);
  EXPECT_NE(error.find(": field 'commands[2].steps_per_second': number out of range"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace kvscope
