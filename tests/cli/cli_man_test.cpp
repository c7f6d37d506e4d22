// The manual pages the build generates list every option of the option table where it applies,
// and the bash completion offers every subcommand: they are made from the programs themselves.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "process.hpp"
#include "run/option_table.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

// How a flag appears in the troff text: bold, every '-' a minus sign.
std::string troff_flag(const std::string& flag) {
  std::string out = "\\fB";
  for (char c : flag) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out + "\\fR";
}

std::string flag_of(const option_spec& spec) {
  return (spec.negated ? "--no-" : "--") + std::string(spec.flag);
}

// The page's ".SS" subsections by title ("kvscope-cli simulate"), and the text before them as "".
std::map<std::string, std::string> sections(const std::string& page) {
  std::map<std::string, std::string> out;
  std::istringstream in(page);
  std::string line, title;
  while (std::getline(in, line)) {
    if (line.rfind(".SS \"", 0) == 0) {
      title = line.substr(5, line.size() - 6);
      std::string plain;
      for (std::size_t i = 0; i < title.size(); ++i) {
        if (title.compare(i, 2, "\\-") == 0) ++i;
        plain += title[i];
      }
      title = plain;
      continue;
    }
    out[title] += line + "\n";
  }
  return out;
}

TEST(Manual, KvscopeCliListsEveryOptionTableFlagUnderItsCommands) {
  const auto page = read_text(std::string(KVSCOPE_MAN_DIR) + "/kvscope-cli.1");
  ASSERT_FALSE(page.empty());
  EXPECT_EQ(page.rfind(".\\\" Generated", 0), 0u);
  const auto by_command = sections(page);
  int checked = 0;
  for (const auto& spec : option_table()) {
    if (spec.places & in_simulate) {
      for (const char* cmd : {"kvscope-cli simulate", "kvscope-cli sweep", "kvscope-cli tune"}) {
        ASSERT_TRUE(by_command.count(cmd)) << cmd;
        EXPECT_NE(by_command.at(cmd).find(troff_flag(flag_of(spec))), std::string::npos)
            << flag_of(spec) << " missing under " << cmd;
      }
      ++checked;
    }
    if (spec.places & in_bench) {
      EXPECT_NE(by_command.at("kvscope-cli bench engine").find(troff_flag(flag_of(spec))), std::string::npos)
          << flag_of(spec) << " missing under bench engine";
    }
  }
  EXPECT_GT(checked, 20);
  // Every subcommand has its subsection; the hidden generator itself has none.
  for (const char* cmd : {"kvscope-cli replay", "kvscope-cli record", "kvscope-cli info", "kvscope-cli calibrate",
                          "kvscope-cli bench quality", "kvscope-cli tour"}) {
    EXPECT_TRUE(by_command.count(cmd)) << cmd;
  }
  EXPECT_FALSE(by_command.count("kvscope-cli man"));
}

TEST(Manual, KvscopeListsEveryGuiOption) {
#if !KVSCOPE_TEST_GUI
  GTEST_SKIP() << "built without the GUI";
#endif
  const auto page = read_text(std::string(KVSCOPE_MAN_DIR) + "/kvscope.1");
  ASSERT_FALSE(page.empty());
  for (const auto& spec : option_table()) {
    if (spec.places & in_gui) {
      EXPECT_NE(page.find(troff_flag(flag_of(spec))), std::string::npos) << flag_of(spec);
    }
  }
  EXPECT_NE(page.find(troff_flag("--session")), std::string::npos);
  EXPECT_NE(page.find(".SH NAME\nkvscope \\- "), std::string::npos);
}

TEST(Manual, BashCompletionOffersSubcommandsAndTheirOptions) {
  temp_dir dir;
  const auto script = std::string(KVSCOPE_MAN_DIR) + "/kvscope-cli.bash";
  const auto complete = [&](const std::string& words, int cword) {
    return run_process({"/bin/bash", "-c",
                        "source \"$0\"; COMP_WORDS=(" + words + "); COMP_CWORD=" + std::to_string(cword) +
                            "; _kvscope_cli; printf '%s\\n' \"${COMPREPLY[@]}\"",
                        script});
  };
  EXPECT_EQ(complete("kvscope-cli rep", 1).out, "replay\n");
  EXPECT_EQ(complete("kvscope-cli bench qual", 2).out, "quality\n");
  EXPECT_EQ(complete("kvscope-cli simulate --q8-thr", 2).out, "--q8-threshold\n");
  EXPECT_EQ(complete("kvscope-cli replay --for", 2).out, "--force\n");
}

}  // namespace
}  // namespace kvscope::test
