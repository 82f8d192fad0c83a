// The C boundary: exceptions to statuses, the thread-local last error, object tags,
// destroyed and wrong-kind objects, status names, versions, and miopenCreate without a GPU.
#include "test_api_support.h"

#include "api/boundary.h"
#include "runtime/platform.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>

using namespace api_test;

TEST_CASE("the C boundary converts every exception to a status and records its reason") {
  QuietLog quiet;
  using hipfuse::Error;
  using hipfuse::Status;
  CHECK(hipfuse::api::guarded("f", [] {}) == miopenStatusSuccess);
  CHECK(last_error().empty());
  CHECK(hipfuse::api::guarded("f", [] { throw Error(Status::unsupported_op, "why"); }) == miopenStatusUnsupportedOp);
  CHECK(last_error() == "f: why");
  CHECK(hipfuse::api::guarded("g", [] { throw Error(Status::bad_parm, "bad"); }) == miopenStatusBadParm);
  CHECK(last_error() == "g: bad");
  CHECK(hipfuse::api::guarded("f", [] { throw std::bad_alloc(); }) == miopenStatusAllocFailed);
  CHECK(last_error().find("out of host memory") != std::string::npos);
  CHECK(hipfuse::api::guarded("f", [] { throw std::runtime_error("boom"); }) == miopenStatusInternalError);
  CHECK(last_error().find("boom") != std::string::npos);
  CHECK(hipfuse::api::guarded("f", [] { throw 42; }) == miopenStatusUnknownError);
  CHECK(last_error().find("unknown exception") != std::string::npos);
  // A success clears the message.
  CHECK(hipfuse::api::guarded("f", [] {}) == miopenStatusSuccess);
  CHECK(last_error().empty());
}

TEST_CASE("the last error is per thread and names the failing function") {
  QuietLog quiet;
  CHECK_STATUS(miopenCreateTensorDescriptor(nullptr), miopenStatusBadParm);
  CHECK(last_error().rfind("miopenCreateTensorDescriptor: ", 0) == 0);
  std::string other = "unset";
  std::thread([&] { other = hipfuseGetLastErrorMessage(); }).join();
  CHECK(other.empty());
  CHECK_FALSE(last_error().empty());
  // Neither status names nor reading the message change it.
  miopenGetErrorString(miopenStatusBadParm);
  CHECK_FALSE(last_error().empty());
  size_t major = 0;
  CHECK_OK(miopenGetVersion(&major, nullptr, nullptr));
}

TEST_CASE("status names are MIOpen's") {
  const std::pair<miopenStatus_t, const char*> names[] = {
      {miopenStatusSuccess, "miopenStatusSuccess"},
      {miopenStatusNotInitialized, "miopenStatusNotInitialized"},
      {miopenStatusInvalidValue, "miopenStatusInvalidValue"},
      {miopenStatusBadParm, "miopenStatusBadParm"},
      {miopenStatusAllocFailed, "miopenStatusAllocFailed"},
      {miopenStatusInternalError, "miopenStatusInternalError"},
      {miopenStatusNotImplemented, "miopenStatusNotImplemented"},
      {miopenStatusUnknownError, "miopenStatusUnknownError"},
      {miopenStatusUnsupportedOp, "miopenStatusUnsupportedOp"},
      {miopenStatusGpuOperationsSkipped, "miopenStatusGpuOperationsSkipped"},
      {miopenStatusVersionMismatch, "miopenStatusVersionMismatch"},
  };
  for (auto [status, text] : names) CHECK(std::string(miopenGetErrorString(status)) == text);
  CHECK(std::string(miopenGetErrorString(enum_value<miopenStatus_t>(99))) == "Unknown error status");
}

TEST_CASE("enum values are MIOpen's") {
  CHECK(miopenStatusUnsupportedOp == 8);
  CHECK(miopenBFloat16 == 5);
  CHECK(miopenDouble == 6);
  CHECK(miopenInt64 == 9);
  CHECK(miopenTensorNDHWC == 8);
  CHECK(miopenConvolutionFwdAlgoImplicitGEMM == 5);
  CHECK(miopenConvolutionAlgoWinograd == 3);
  CHECK(miopenActivationELU == 9);
  CHECK(miopenBNSpatial == 1);
  CHECK(miopenHorizontalFusion == 1);
  CHECK(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC == 1);
  CHECK(miopenPaddingValid == 2);
  CHECK(miopenDepthwise == 3);
  CHECK(MIOPEN_BACKEND_HIP == 1);
  // The internal mirrors agree.
  CHECK(static_cast<int>(hipfuse::DataType::bfloat16) == miopenBFloat16);
  CHECK(static_cast<int>(hipfuse::ActivationMode::clippedrelu) == miopenActivationCLIPPEDRELU);
  CHECK(static_cast<int>(hipfuse::BatchNormMode::per_activation) == miopenBNPerActivation);
  CHECK(static_cast<int>(hipfuse::Status::unsupported_op) == miopenStatusUnsupportedOp);
  CHECK(static_cast<int>(hipfuse::Status::version_mismatch) == miopenStatusVersionMismatch);
}

TEST_CASE("versions") {
  size_t major = 0, minor = 0, patch = 0;
  CHECK_OK(miopenGetVersion(&major, &minor, &patch));
  CHECK(major == MIOPEN_VERSION_MAJOR);
  CHECK(minor == MIOPEN_VERSION_MINOR);
  CHECK(patch == MIOPEN_VERSION_PATCH);
  CHECK_OK(miopenGetVersion(nullptr, nullptr, nullptr));  // MIOpen skips null pointers
  const std::string v = hipfuseGetVersionString();
  CHECK(std::count(v.begin(), v.end(), '.') == 2);
}

TEST_CASE("every object's tag sits at the address of its public pointer") {
  using namespace hipfuse::api;
  HandleObject h;
  TensorObject t;
  ConvolutionObject c;
  ActivationObject a;
  PlanObject p;
  OpObject o;
  ArgsObject r;
  CHECK(static_cast<void*>(static_cast<miopenHandle*>(&h)) == static_cast<void*>(&h.tag));
  CHECK(static_cast<void*>(static_cast<miopenTensorDescriptor*>(&t)) == static_cast<void*>(&t.tag));
  CHECK(static_cast<void*>(static_cast<miopenConvolutionDescriptor*>(&c)) == static_cast<void*>(&c.tag));
  CHECK(static_cast<void*>(static_cast<miopenActivationDescriptor*>(&a)) == static_cast<void*>(&a.tag));
  CHECK(static_cast<void*>(static_cast<miopenFusionPlanDescriptor*>(&p)) == static_cast<void*>(&p.tag));
  CHECK(static_cast<void*>(static_cast<miopenFusionOpDescriptor*>(&o)) == static_cast<void*>(&o.tag));
  CHECK(static_cast<void*>(static_cast<miopenOperatorArgs*>(&r)) == static_cast<void*>(&r.tag));
}

TEST_CASE("wrong-kind, destroyed and foreign objects are bad parameters with a reason") {
  QuietLog quiet;
  Tensor x(miopenFloat, 1, 4, 8, 8);
  // A tensor descriptor where a convolution descriptor belongs.
  auto* not_conv = reinterpret_cast<miopenConvolutionDescriptor_t>(x.d);
  CHECK_STATUS(miopenSetConvolutionGroupCount(not_conv, 2), miopenStatusBadParm);
  CHECK(last_error().find("is a tensor descriptor") != std::string::npos);
  CHECK(last_error().find("not a convolution descriptor") != std::string::npos);

  miopenTensorDescriptor_t gone = nullptr;
  REQUIRE(miopenCreateTensorDescriptor(&gone) == miopenStatusSuccess);
  CHECK_OK(miopenDestroyTensorDescriptor(gone));
  CHECK_STATUS(miopenSet4dTensorDescriptor(gone, miopenFloat, 1, 1, 1, 1), miopenStatusBadParm);
  CHECK(last_error().find("already destroyed") != std::string::npos);
  CHECK_STATUS(miopenDestroyTensorDescriptor(gone), miopenStatusBadParm);  // double destroy

  alignas(16) unsigned char garbage[64];
  std::memset(garbage, 0x5a, sizeof garbage);
  auto* foreign = reinterpret_cast<miopenTensorDescriptor_t>(garbage);
  CHECK_STATUS(miopenSet4dTensorDescriptor(foreign, miopenFloat, 1, 1, 1, 1), miopenStatusBadParm);
  CHECK(last_error().find("is not a tensor descriptor") != std::string::npos);
  CHECK(last_error().find("created by hipfuse") != std::string::npos);
}

TEST_CASE("destroying null is a successful no-op for every kind") {
  CHECK_OK(miopenDestroy(nullptr));
  CHECK_OK(miopenDestroyTensorDescriptor(nullptr));
  CHECK_OK(miopenDestroyConvolutionDescriptor(nullptr));
  CHECK_OK(miopenDestroyActivationDescriptor(nullptr));
  CHECK_OK(miopenDestroyFusionPlan(nullptr));
  CHECK_OK(miopenDestroyOperatorArgs(nullptr));
}

TEST_CASE("miopenCreate without a GPU is NotInitialized with one clear line") {
  QuietLog quiet;
  std::string why;
  const int devices = hipfuse::rt::device_count(&why);
  int count = -1;
  const char* reason = nullptr;
  CHECK_OK(hipfuseGetDeviceAvailable(&count, &reason));
  CHECK(count == devices);
  REQUIRE(reason != nullptr);
  CHECK_OK(hipfuseGetDeviceAvailable(&count, nullptr));
  CHECK_STATUS(hipfuseGetDeviceAvailable(nullptr, nullptr), miopenStatusBadParm);

  miopenHandle_t handle = reinterpret_cast<miopenHandle_t>(0x1);  // must stay untouched on failure
  if (devices == 0) {
    CHECK(std::string(reason).rfind("no GPU device found", 0) == 0);
    CHECK_STATUS(miopenCreate(&handle), miopenStatusNotInitialized);
    CHECK(last_error().find("no GPU device found (") != std::string::npos);
    CHECK(handle == reinterpret_cast<miopenHandle_t>(0x1));
    CHECK_STATUS(miopenCreateWithStream(&handle, nullptr), miopenStatusNotInitialized);
  } else {
    CHECK(std::string(reason).empty());
    CHECK_OK(miopenCreate(&handle));
    CHECK_OK(miopenDestroy(handle));
  }
  CHECK_STATUS(miopenCreate(nullptr), miopenStatusBadParm);
  CHECK_STATUS(miopenCreateWithStream(nullptr, nullptr), miopenStatusBadParm);
}

TEST_CASE("handle state without launching anything") {
  QuietLog quiet;
  FakeHandle h;
  auto* stream = reinterpret_cast<hipStream_t>(0x1234);
  CHECK_OK(miopenSetStream(h, stream));
  miopenAcceleratorQueue_t got = nullptr;
  CHECK_OK(miopenGetStream(h, &got));
  CHECK(got == stream);
  CHECK_OK(miopenSetStream(h, nullptr));
  CHECK_OK(miopenGetStream(h, &got));
  CHECK(got == nullptr);
  float ms = -1;
  CHECK_OK(miopenGetKernelTime(h, &ms));
  CHECK(ms == 0.0f);
  CHECK_OK(miopenEnableProfiling(h, false));
  auto alloc = [](void*, size_t) -> void* { return nullptr; };
  auto dealloc = [](void*, void*) {};
  CHECK_OK(miopenSetAllocator(h, alloc, dealloc, nullptr));
  CHECK(static_cast<bool>(h.object->allocator));
  CHECK_OK(miopenSetAllocator(h, nullptr, nullptr, nullptr));
  CHECK_FALSE(static_cast<bool>(h.object->allocator));
}

TEST_CASE("kernel cache statistics") {
  QuietLog quiet;
  hipfuseKernelCacheStats stats{};
  CHECK_OK(hipfuseResetKernelCacheStats());
  CHECK_OK(hipfuseGetKernelCacheStats(&stats));
  CHECK(stats.memoryHits == 0);
  CHECK(stats.diskHits == 0);
  CHECK(stats.compiles == 0);
  CHECK_STATUS(hipfuseGetKernelCacheStats(nullptr), miopenStatusBadParm);
}
