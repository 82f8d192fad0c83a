// The fuzz_api harness, shared by the libFuzzer target (tests/fuzz/fuzz_api.cpp) and the
// unit test that replays its corpus and regression inputs under the normal build
// (tests/unit/test_reliability_fuzz_replay.cpp).
//
// The input bytes are read as a program: each call starts with one byte choosing the entry
// point, then the bytes its arguments need (which object of a pool, a value from a table of
// interesting integers, a raw value, ...). Running out of bytes reads zeros, so every input
// is a valid program. The harness keeps the objects it created in pools, by kind, and passes
// on purpose: null, an object of another kind, a junk pointer to memory hipfuse never made,
// and a destroyed object still inside hipfuse's quarantine (lib/api/objects.cpp keeps the
// last 1024 destroyed shells with a poisoned tag, so using them is detectable, not UB).
// Destroyed objects older than that window are never passed: that would be a real
// use-after-free in the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hipfuse::fuzz {

struct ApiOptions {
  // Let hipfuseCompileFusionPlanForArch reach hipRTC for plans a solver accepts (slow:
  // ~0.3-3 s per kernel). Off: those calls are skipped; the solver choice, the kernel
  // specialisation (code generation) and the cache key are still computed, without hipRTC.
  bool allow_rtc = false;
  // Skip the calls that would only trip over bugs already reported and still open (listed
  // in api_harness.cpp, kOpenIssues, and in docs/RELIABILITY.md), so that fuzzing goes on
  // finding new ones. Off (HIPFUSE_FUZZ_STRICT=1 for fuzz_api): every call is made.
  bool avoid_open_issues = true;
  int max_calls = 256;
};

// Rules checked for every call:
//   - the status is one the header (miopen.h / hipfuse.h) documents for that function;
//   - a failure leaves hipfuseGetLastErrorMessage() = "<function>: <reason>", a success "";
//   - a failing call leaves its outputs untouched;
//   - null (except for Destroy*, where null is a no-op), destroyed, junk and wrong-kind
//     objects are refused (BadParm);
//   - setters and getters agree (tensor, convolution, activation descriptors; op handles;
//     op counts; tensor byte counts computed independently in 128-bit arithmetic);
//   - no plan executes or reports itself compiled without a GPU; the solver choice made by
//     compile agrees with the solvers' own applicability checks.
// Returns "" when every rule held, otherwise the first rule broken, with the call trace.
std::string check_api_sequence(const std::uint8_t* data, std::size_t size, const ApiOptions& options = {});

}  // namespace hipfuse::fuzz
