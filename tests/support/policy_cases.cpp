#include "policy_cases.hpp"

#include <fstream>
#include <stdexcept>

namespace kvscope::test {

std::vector<policy_case> load_policy_cases() {
  std::ifstream in(data_path("policy_cases.jsonl"));
  if (!in) throw std::runtime_error("missing " + data_path("policy_cases.jsonl"));
  std::vector<policy_case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    policy_case c;
    c.name = j.at("name");
    c.config_json = j.at("config");
    const auto& cfg = c.config_json;
    c.config.q8_threshold = cfg.at("q8_threshold").get<float>();
    c.config.q4_threshold = cfg.at("q4_threshold").get<float>();
    c.config.hysteresis = cfg.at("hysteresis").get<float>();
    c.config.ewma_alpha = cfg.at("ewma_alpha").get<float>();
    c.config.min_level = *parse_precision(cfg.at("min_level").get<std::string>());
    c.config.max_level = *parse_precision(cfg.at("max_level").get<std::string>());
    if (j.contains("error")) {
      c.error = j.at("error").get<std::string>();
    } else {
      c.pressures = j.at("pressures").get<std::vector<double>>();
      c.levels = j.at("levels").get<std::vector<std::string>>();
      c.ewma = j.at("ewma").get<std::vector<double>>();
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace kvscope::test
