// Regression tests for the bugs the fuzzers found, one test per bug, named after the fuzz
// harness's open-issue rule (tests/fuzz/api_harness.cpp, the list at the top) and written
// against the behaviour the header documents, so they read as a specification.
//
// Bugs still open are marked doctest::should_fail: the test passes while the bug is there
// and fails ("should have failed") the day it is fixed. Whoever fixes one removes the
// decorator here and the rule in api_harness.cpp, and the regression inputs in
// tests/fuzz/regressions/fuzz_api/ then guard it for good. Each check runs in a forked
// child, so that under HIPFUSE_SANITIZE (UBSan aborts on the signed overflow) the test
// process survives.
#include "test_reliability_support.h"

#include "plan/fusion_plan.h"
#include "solvers/solver.h"

#include <hipfuse/hipfuse.h>
#include <miopen/miopen.h>

#include <climits>
#include <malloc.h>
#if HIPFUSE_TEST_ASAN
// Exported by both GCC's and clang's ASan runtimes; GCC ships no header for it.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

using namespace reliability;

namespace {

// The child's verdict: 0 when the documented behaviour held.
int behaves(const std::function<bool()>& body) {
  return in_child([&] {
    setenv("MIOPEN_LOG_LEVEL", "1", 1);
    return body() ? 0 : 1;
  });
}

struct Tensor {
  miopenTensorDescriptor_t d = nullptr;
  Tensor() { miopenCreateTensorDescriptor(&d); }
  ~Tensor() { miopenDestroyTensorDescriptor(d); }
  operator miopenTensorDescriptor_t() const { return d; }
};

}  // namespace

// huge-tensor (fixed: lib/plan/tensor.cpp now refuses spans >= 2^59 and counts >= 2^62
// elements). A descriptor whose element count or byte span did not fit in 64 bits was
// accepted; TensorDesc::packed, span() and element_count() then overflowed int64 (undefined
// behaviour), and miopenGetTensorNumBytes returned a wrapped size (found by fuzz_api:
// "miopenGetTensorNumBytes succeeded (13903533915678638080) for a tensor whose byte count does
// not fit in 64 bits").
TEST_CASE("reliability (fixed bug huge-tensor): descriptors too large for 64-bit sizes are refused") {
  CHECK(behaves([] {
          Tensor t;
          return miopenSet4dTensorDescriptor(t, miopenFloat, 65536, 65536, 65536, 65536) == miopenStatusBadParm;
        }) == 0);
  CHECK(behaves([] {
          Tensor t;
          return miopenSet4dTensorDescriptorEx(t, miopenFloat, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX,
                                               INT_MAX) == miopenStatusBadParm;
        }) == 0);
  CHECK(behaves([] {
          Tensor t;
          const int dims[8] = {1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024};
          return miopenSetTensorDescriptor(t, miopenHalf, 8, dims, nullptr) == miopenStatusBadParm;
        }) == 0);
}

TEST_CASE("reliability: byte counts that fit in 64 bits are exact") {
  // The boundary of the bug above: 2^48 elements, 2^50 bytes, strides past int.
  ScopedEnv quiet("MIOPEN_LOG_LEVEL", "1");
  Tensor t;
  REQUIRE(miopenSet4dTensorDescriptor(t, miopenFloat, 65536, 65536, 65536, 1) == miopenStatusSuccess);
  std::size_t bytes = 0;
  REQUIRE(miopenGetTensorNumBytes(t, &bytes) == miopenStatusSuccess);
  CHECK(bytes == (std::size_t{1} << 50));
  int dims[8] = {}, strides[8] = {};
  miopenDataType_t type{};
  CHECK(miopenGetTensorDescriptor(t, &type, dims, strides) == miopenStatusBadParm);  // stride 2^32 is no int
}

// conv-pad-overflow (fixed: lib/plan/convolution.cpp now computes std::int64_t{2} * pads[d]).
// Paddings up to INT_MAX are accepted, and ConvDesc::forward_output computed `2 * pads[d]` in
// int: for a pad >= 2^30 it overflowed (undefined behaviour) and, wrapping, gave a small,
// wrong output size. The exact size, here 8 + 2 * INT_MAX - 2 = 4294967300 rows, does not fit
// in an int: BadParm from miopenGetConvolutionForwardOutputDim.
TEST_CASE("reliability (fixed bug conv-pad-overflow): huge paddings give exact sizes or BadParm") {
  CHECK(behaves([] {
          Tensor x, w;
          miopenSet4dTensorDescriptor(x, miopenFloat, 1, 1, 8, 8);
          miopenSet4dTensorDescriptor(w, miopenFloat, 1, 1, 3, 3);
          miopenConvolutionDescriptor_t conv = nullptr;
          miopenCreateConvolutionDescriptor(&conv);
          if (miopenInitConvolutionDescriptor(conv, miopenConvolution, INT_MAX, INT_MAX, 1, 1, 1, 1) != miopenStatusSuccess) {
            return true;  // refusing the padding up front is fine too
          }
          int n = 0, c = 0, h = 0, w_out = 0;
          const miopenStatus_t s = miopenGetConvolutionForwardOutputDim(conv, x, w, &n, &c, &h, &w_out);
          miopenDestroyConvolutionDescriptor(conv);
          return s == miopenStatusBadParm;
        }) == 0);
}

TEST_CASE("reliability: paddings just below the overflow give exact output sizes") {
  Tensor x, w;
  REQUIRE(miopenSet4dTensorDescriptor(x, miopenFloat, 1, 1, 8, 8) == miopenStatusSuccess);
  REQUIRE(miopenSet4dTensorDescriptor(w, miopenFloat, 1, 1, 3, 3) == miopenStatusSuccess);
  miopenConvolutionDescriptor_t conv = nullptr;
  REQUIRE(miopenCreateConvolutionDescriptor(&conv) == miopenStatusSuccess);
  // pad 2^29: 8 + 2^30 - 3 + 1 = 1073741830 rows, an int.
  REQUIRE(miopenInitConvolutionDescriptor(conv, miopenConvolution, 1 << 29, 0, 1, 1, 1, 1) == miopenStatusSuccess);
  int n = 0, c = 0, h = 0, w_out = 0;
  CHECK(miopenGetConvolutionForwardOutputDim(conv, x, w, &n, &c, &h, &w_out) == miopenStatusSuccess);
  CHECK(h == 1073741830);
  CHECK(w_out == 6);
  miopenDestroyConvolutionDescriptor(conv);
}

// create-null-output-leak (fixed: lib/api/{tensor,convolution,activation,op_args}_api.cpp now
// check the output first). `out_param(p, "name") = new X();` evaluated `new X()` first (C++17
// sequences the right operand of = before the left), so a null output pointer cost a leaked
// object on every call (found by fuzz_api under LeakSanitizer: "1920 byte(s) leaked in 30
// allocation(s)").
namespace {

// Bytes currently allocated by malloc/new in this process.
std::size_t allocated_bytes() {
#if HIPFUSE_TEST_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

}  // namespace

TEST_CASE("reliability (fixed bug create-null-output-leak): a null output allocates nothing") {
  ScopedEnv quiet("MIOPEN_LOG_LEVEL", "1");
  struct Case {
    const char* name;
    std::function<miopenStatus_t()> call;
  };
  const Case cases[] = {
      {"miopenCreateTensorDescriptor", [] { return miopenCreateTensorDescriptor(nullptr); }},
      {"miopenCreateConvolutionDescriptor", [] { return miopenCreateConvolutionDescriptor(nullptr); }},
      {"miopenCreateActivationDescriptor", [] { return miopenCreateActivationDescriptor(nullptr); }},
      {"miopenCreateOperatorArgs", [] { return miopenCreateOperatorArgs(nullptr); }},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    (void)c.call();  // first call: the thread's last-error string gets its capacity
    const std::size_t before = allocated_bytes();
    for (int i = 0; i < 1000; ++i) REQUIRE(c.call() == miopenStatusBadParm);
    const std::size_t after = allocated_bytes();
    CHECK_MESSAGE(after < before + 4096, "1000 calls grew the heap by " << (after - before) << " bytes");
  }
}

// conv-direct-huge-k (fixed: lib/solvers/conv_direct_solver.cpp caps the rounding at the
// largest tile). For a convolution with more than 2^30 output channels per group,
// choose_config rounded k_per_group up to a power of two in an int, which doubled past 2^30:
// signed overflow (UBSan, found by fuzz_api: "1073741824 * 2 cannot be represented in type
// 'int'"), after which it wrapped to 0 and the loop never ended: miopenCompileFusionPlan /
// hipfuseCompileFusionPlanForArch hung. Such a plan is only descriptors (no memory is needed
// to describe it). Expected: an answer (UnsupportedOp with the reason, or a compile) in
// bounded time. Regression input: tests/fuzz/regressions/fuzz_api/conv-direct-huge-k.bin.
TEST_CASE("reliability (fixed bug conv-direct-huge-k): the solvers answer for a conv with 2^30+1 output channels") {
  CHECK(behaves([] {
          ::alarm(5);  // applicability is arithmetic on descriptors; a hang ends the child with SIGALRM
          using namespace hipfuse;
          auto plan = std::make_unique<FusionPlan>(FusionDirection::vertical,
                                                   TensorDesc::packed(DataType::float32, {1, 1, 4, 4}, Layout::nchw));
          ConvForwardOp conv;
          conv.conv.pads = {0, 0};
          conv.weights = TensorDesc::packed(DataType::float32, {(std::int64_t{1} << 30) + 1, 1, 1, 1}, Layout::nchw);
          plan->add(conv);
          Target target;
          target.arch = "sm_90";
          for (const Solver* solver : solver_registry()) (void)solver->applies(*plan, target);
          return true;
        }) == 0);
}
