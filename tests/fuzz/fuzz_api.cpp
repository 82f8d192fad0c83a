// libFuzzer entry for the C API; the rules live in api_harness.cpp. Set HIPFUSE_FUZZ_RTC=1
// to let offline compiles of accepted plans run hipRTC (slow, but covers the cache path),
// HIPFUSE_FUZZ_STRICT=1 to stop steering around the open issues.
#include "api_harness.h"

#include <miopen/miopen.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
hipfuse::fuzz::ApiOptions g_options;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Failing calls log at error level: thousands per second of fuzzing.
  setenv("MIOPEN_LOG_LEVEL", "1", 0);
  // Offline compiles (HIPFUSE_FUZZ_RTC=1) must not fill the user's cache.
  setenv("MIOPEN_DISABLE_CACHE", "1", 0);
  const char* rtc = std::getenv("HIPFUSE_FUZZ_RTC");
  g_options.allow_rtc = rtc != nullptr && std::strcmp(rtc, "1") == 0;
  // HIPFUSE_FUZZ_STRICT=1: no steering around open issues (see api_harness.h).
  const char* strict = std::getenv("HIPFUSE_FUZZ_STRICT");
  g_options.avoid_open_issues = !(strict != nullptr && std::strcmp(strict, "1") == 0);
  // Fill hipfuse's quarantine of destroyed objects (1024 shells, lib/api/objects.cpp) once:
  // from then on every destroy frees the oldest shell, so an input that destroys what it
  // creates frees as much as it allocates, and libFuzzer runs its leak check (a full heap
  // scan) only when an input really leaks.
  for (int i = 0; i < 1100; ++i) {
    miopenTensorDescriptor_t t = nullptr;
    if (miopenCreateTensorDescriptor(&t) == miopenStatusSuccess) (void)miopenDestroyTensorDescriptor(t);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string broken = hipfuse::fuzz::check_api_sequence(data, size, g_options);
  if (!broken.empty()) {
    std::fprintf(stderr, "fuzz_api: rule broken: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
