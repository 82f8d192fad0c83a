// libFuzzer entry for the spec loader; the rules live in spec_harness.cpp.
#include "spec_harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
bool g_strict = false;
}

// HIPFUSE_FUZZ_STRICT=1: no steering around open issues (see spec_harness.h).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* strict = std::getenv("HIPFUSE_FUZZ_STRICT");
  g_strict = strict != nullptr && std::strcmp(strict, "1") == 0;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string broken = hipfuse::fuzz::check_spec_input(data, size, !g_strict);
  if (!broken.empty()) {
    std::fprintf(stderr, "fuzz_spec: rule broken: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
