// libFuzzer entry point: the policy target of fuzz_bodies.cpp, every input read as a JSON and as
// a TOML policy file (built by run_fuzz.sh with clang).
#include "fuzz_bodies.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  kvscope::fuzz::run_one(kvscope::fuzz::target::policy, data, size);
  return 0;
}
