#pragma once
// Keeps every record a request tracker completes, for tests of request_outcomes.
#include <vector>

#include "outcome/request_outcomes.hpp"

namespace kvscope::test {

struct recorder {
  std::vector<request_record> rows;
  request_outcomes::row_sink sink() {
    return [this](const request_record& r) { rows.push_back(r); };
  }
};

}  // namespace kvscope::test
