#pragma once
// The few HIP runtime calls the driver makes itself (device choice, streams, memory, events);
// everything about plans goes through the MIOpen/hipfuse API (plan_builder.h).

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include <hip/hip_runtime_api.h>

namespace hipfuse::driver {

// A HIP runtime failure: what() = "CALL: hipErrorName: description".
struct GpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// hipErrorOutOfMemory: the case does not fit, which is not a defect of the plan.
struct OutOfDeviceMemory : GpuError {
  using GpuError::GpuError;
};
void hip_check(hipError_t e, const char* what);

// The reason no GPU can be used, or nullopt when device `device` exists. The text for "no GPU
// at all" is the library's (miopenCreate's last error: "no GPU device found (...)").
std::optional<std::string> gpu_unavailable_reason(int device);

struct DeviceProperties {
  int ordinal = 0;
  std::string name;
  std::string arch;                    // "sm_90"
  std::size_t l2_bytes = 50u << 20;    // H200: 50 MiB
  std::size_t global_bytes = 0;
};
// Makes `device` current and reads its properties.
DeviceProperties select_device(int device);

// An owned stream.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  hipStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  hipStream_t stream_ = nullptr;
};

}  // namespace hipfuse::driver
