// libFuzzer entry point: the model_config document of fuzz_bodies.hpp (built by run_fuzz.sh with clang).
#include "fuzz_bodies.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, unsigned long size) {
  kvscope::fuzz::run_document(kvscope::fuzz::document::model_config, data, size);
  return 0;
}
