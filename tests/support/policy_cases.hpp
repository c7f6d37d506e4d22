#pragma once
// The reference implementation's answers (tests/data/policy_cases.jsonl, copied from
// shared/testdata/policy): a config, pressures and the expected level and EWMA per step,
// or the expected validation error.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/policy_config.hpp"
#include "process.hpp"

namespace kvscope::test {

struct policy_case {
  std::string name;
  nlohmann::json config_json;
  policy_config config;
  std::vector<double> pressures;
  std::vector<std::string> levels;
  std::vector<double> ewma;
  std::optional<std::string> error;
};

std::vector<policy_case> load_policy_cases();

}  // namespace kvscope::test
