#pragma once
// What nlohmann::json lets through but kvscope's JSON readers (policy files, sessions) must
// refuse, found in one SAX pass before the document is built.
#include <string>
#include <string_view>

#include "util/expected.hpp"

namespace kvscope {

// Refuses, naming the key by its path from the root ("options.policy.q8_threshold",
// "commands[2].step"):
// - a key given twice in one object (nlohmann would keep one value and say nothing):
//   "SOURCE: duplicate key 'PATH'";
// - a number too large for a double (nlohmann throws out_of_range rather than a parse error):
//   "SOURCE:LINE: field 'PATH': number out of range".
// Syntax errors are left to the caller's parser, which reports them in its own words.
expected<void, std::string> check_json_document(std::string_view text, std::string_view source);

}  // namespace kvscope
