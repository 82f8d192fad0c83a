// Helpers for the C API tests: quiet logging, status checks that also require a reason,
// RAII wrappers around descriptors, and a handle that needs no GPU.
#pragma once

#include <doctest/doctest.h>

#include "api/objects.h"

#include <hipfuse/hipfuse.h>
#include <miopen/miopen.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace api_test {

// Failing calls log at error level; the misuse tests make thousands of them.
class QuietLog {
 public:
  QuietLog() {
    if (const char* v = std::getenv("MIOPEN_LOG_LEVEL")) saved_ = v;
    setenv("MIOPEN_LOG_LEVEL", "1", 1);
  }
  ~QuietLog() {
    if (saved_) setenv("MIOPEN_LOG_LEVEL", saved_->c_str(), 1);
    else unsetenv("MIOPEN_LOG_LEVEL");
  }
  QuietLog(const QuietLog&) = delete;
  QuietLog& operator=(const QuietLog&) = delete;

 private:
  std::optional<std::string> saved_;
};

// An enum holding a value outside its enumerators, as a careless or malicious caller passes.
template <typename E>
E enum_value(int value) {
  return static_cast<E>(value);
}

inline std::string last_error() { return hipfuseGetLastErrorMessage(); }
inline std::string name(miopenStatus_t s) { return miopenGetErrorString(s); }

// The status must be as expected; a failure must leave a reason, a success none.
#define CHECK_STATUS(expr, expected)                                              \
  do {                                                                            \
    const miopenStatus_t status_ = (expr);                                        \
    INFO(#expr, " -> ", api_test::name(status_), ": ", api_test::last_error());   \
    CHECK(api_test::name(status_) == api_test::name(expected));                   \
    if ((expected) != miopenStatusSuccess) CHECK_FALSE(api_test::last_error().empty()); \
    else CHECK(api_test::last_error().empty());                                   \
  } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, miopenStatusSuccess)

struct Tensor {
  miopenTensorDescriptor_t d = nullptr;
  Tensor() { REQUIRE(miopenCreateTensorDescriptor(&d) == miopenStatusSuccess); }
  Tensor(miopenDataType_t type, int n, int c, int h, int w) : Tensor() {
    REQUIRE(miopenSet4dTensorDescriptor(d, type, n, c, h, w) == miopenStatusSuccess);
  }
  Tensor(miopenDataType_t type, miopenTensorLayout_t layout, std::vector<int> lens) : Tensor() {
    REQUIRE(miopenSetNdTensorDescriptorWithLayout(d, type, layout, lens.data(), static_cast<int>(lens.size())) ==
            miopenStatusSuccess);
  }
  ~Tensor() { miopenDestroyTensorDescriptor(d); }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  operator miopenTensorDescriptor_t() const { return d; }
};

struct Conv {
  miopenConvolutionDescriptor_t d = nullptr;
  explicit Conv(int pad = 1, int stride = 1, int dilation = 1) {
    REQUIRE(miopenCreateConvolutionDescriptor(&d) == miopenStatusSuccess);
    REQUIRE(miopenInitConvolutionDescriptor(d, miopenConvolution, pad, pad, stride, stride, dilation, dilation) ==
            miopenStatusSuccess);
  }
  ~Conv() { miopenDestroyConvolutionDescriptor(d); }
  Conv(const Conv&) = delete;
  Conv& operator=(const Conv&) = delete;
  operator miopenConvolutionDescriptor_t() const { return d; }
};

struct Activation {
  miopenActivationDescriptor_t d = nullptr;
  explicit Activation(miopenActivationMode_t mode = miopenActivationRELU, double a = 0, double b = 0, double g = 0) {
    REQUIRE(miopenCreateActivationDescriptor(&d) == miopenStatusSuccess);
    REQUIRE(miopenSetActivationDescriptor(d, mode, a, b, g) == miopenStatusSuccess);
  }
  ~Activation() { miopenDestroyActivationDescriptor(d); }
  Activation(const Activation&) = delete;
  Activation& operator=(const Activation&) = delete;
  operator miopenActivationDescriptor_t() const { return d; }
};

struct Plan {
  miopenFusionPlanDescriptor_t d = nullptr;
  explicit Plan(miopenTensorDescriptor_t input, miopenFusionDirection_t dir = miopenVerticalFusion) {
    REQUIRE(miopenCreateFusionPlan(&d, dir, input) == miopenStatusSuccess);
  }
  ~Plan() { miopenDestroyFusionPlan(d); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  operator miopenFusionPlanDescriptor_t() const { return d; }
  int op_count() const {
    hipfuseFusionPlanInfo info{};
    REQUIRE(hipfuseGetFusionPlanInfo(d, &info) == miopenStatusSuccess);
    return info.opCount;
  }
};

struct Args {
  miopenOperatorArgs_t d = nullptr;
  Args() { REQUIRE(miopenCreateOperatorArgs(&d) == miopenStatusSuccess); }
  ~Args() { miopenDestroyOperatorArgs(d); }
  Args(const Args&) = delete;
  Args& operator=(const Args&) = delete;
  operator miopenOperatorArgs_t() const { return d; }
};

// A handle made without a GPU (miopenCreate needs one): device 0, sm_90, default stream.
// Good for every check that happens before a kernel is built or launched.
struct FakeHandle {
  hipfuse::api::HandleObject* object = new hipfuse::api::HandleObject();
  FakeHandle() {
    object->target.device = 0;
    object->target.arch = "sm_90";
  }
  ~FakeHandle() { miopenDestroy(object); }
  FakeHandle(const FakeHandle&) = delete;
  FakeHandle& operator=(const FakeHandle&) = delete;
  operator miopenHandle_t() const { return object; }
};

}  // namespace api_test
