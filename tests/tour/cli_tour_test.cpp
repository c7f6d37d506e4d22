// `kvscope-cli tour`: the built-in tour as text, a teacher's script, and a bad script refused
// with exit 2 and a message naming the step and the field.
#include <gtest/gtest.h>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

TEST(CliTour, PrintsTheBuiltInTourStepByStep) {
  const auto r = run_process({cli_path(), "tour"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("kvscope tour: The life of a KV block", 0), 0u) << r.out.substr(0, 200);
  for (const char* needle : {"== Step 1 of 13: An empty pool ==", "== Step 13 of 13: Eviction when space is needed ==",
                             "block table of request B", "engine step 57"}) {
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
  }
}

TEST(CliTour, RunsATeachersScript) {
  temp_dir dir;
  const auto path = dir.file("mine.json");
  write_text(path, R"({"title": "Mine", "requests": [{"name": "solo", "prompt_tokens": 9, "output_tokens": 3}],
                       "steps": [{"title": "Go", "steps": 1, "narration": "Three blocks.", "show": ["free_frames"]}]})");
  const auto r = run_process({cli_path(), "tour", "--script", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("== Step 1 of 1: Go =="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  * free frames 21 of 24"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("block table of request solo"), std::string::npos) << r.out;
}

TEST(CliTour, ABadScriptExitsTwoNamingTheStepAndField) {
  temp_dir dir;
  const auto path = dir.file("tour.json");
  write_text(path, R"({"requests": [{"prompt_tokens": 8}], "steps": [{"steps": 1, "narration": 42}]})");
  const auto r = run_process({cli_path(), "tour", "--script", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kvscope-cli: " + path +
                       ": field 'steps[0].narration': expected a string, got number\n");
  EXPECT_EQ(r.out, "");

  const auto missing = run_process({cli_path(), "tour", "--script", dir.file("nope.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "kvscope-cli: " + dir.file("nope.json") + ": cannot open file\n");
}

}  // namespace
}  // namespace kvscope::test
