// libFuzzer entry point: the calibration document of fuzz_bodies.hpp (built by run_fuzz.sh with clang).
#include "fuzz_bodies.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  kvscope::fuzz::run_document(kvscope::fuzz::document::calibration, data, size);
  return 0;
}
