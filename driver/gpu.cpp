#include "gpu.h"

#include <fmt/format.h>

#include <hipfuse/hipfuse.h>

namespace hipfuse::driver {

void hip_check(hipError_t e, const char* what) {
  if (e == hipSuccess) return;
  if (e == hipErrorOutOfMemory)
    throw OutOfDeviceMemory(fmt::format("{}: {}: {}", what, hipGetErrorName(e), hipGetErrorString(e)));
  throw GpuError(fmt::format("{}: {}: {}", what, hipGetErrorName(e), hipGetErrorString(e)));
}

std::optional<std::string> gpu_unavailable_reason(int device) {
  int count = 0;
  const char* why = nullptr;
  const miopenStatus_t s = hipfuseGetDeviceAvailable(&count, &why);
  if (s != miopenStatusSuccess) return fmt::format("cannot query GPUs: {}", hipfuseGetLastErrorMessage());
  if (count == 0) return std::string(why && *why ? why : "no GPU device found");
  if (device < 0 || device >= count)
    return fmt::format("GPU device {} not found ({} device{} visible: 0{})", device, count, count == 1 ? "" : "s",
                       count > 1 ? fmt::format("..{}", count - 1) : "");
  return std::nullopt;
}

DeviceProperties select_device(int device) {
  hip_check(hipSetDevice(device), fmt::format("hipSetDevice({})", device).c_str());
  DeviceProperties p;
  p.ordinal = device;
  hipDeviceProp_t prop{};
  hip_check(hipGetDeviceProperties(&prop, device), "hipGetDeviceProperties");
  p.name = prop.name;
#if defined(__HIP_PLATFORM_AMD__)
  p.arch = prop.gcnArchName;
#else
  p.arch = fmt::format("sm_{}{}", prop.major, prop.minor);
#endif
  if (prop.l2CacheSize > 0) p.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  p.global_bytes = prop.totalGlobalMem;
  return p;
}

Stream::Stream() { hip_check(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), "hipStreamCreate"); }
Stream::~Stream() {
  if (stream_) (void)hipStreamDestroy(stream_);
}
void Stream::synchronize() const { hip_check(hipStreamSynchronize(stream_), "hipStreamSynchronize"); }

}  // namespace hipfuse::driver
