// libFuzzer entry point: the burstgpt target of fuzz_bodies.cpp (built by run_fuzz.sh with clang).
#include "fuzz_bodies.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  kvscope::fuzz::run_one(kvscope::fuzz::target::burstgpt, data, size);
  return 0;
}
