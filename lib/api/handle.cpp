// Handles: the device, its stream, the compile target and kernel timing.
#include "api/boundary.h"
#include "api/hip_check.h"
#include "api/objects.h"
#include "common/log.h"
#include "runtime/platform.h"

#include <hipfuse/hipfuse.h>

#include <memory>

using namespace hipfuse;
using namespace hipfuse::api;

namespace {

miopenHandle_t create_handle(hipStream_t stream) {
  std::string why;
  if (rt::device_count(&why) == 0) fail(Status::not_initialized, why);
  int device = 0;
  check_hip(hipGetDevice(&device), "hipGetDevice");
  rt::activate_device(device);
  const rt::DeviceInfo info = rt::device_info(device);

  auto handle = std::make_unique<HandleObject>();
  handle->device = device;
  handle->stream = stream;
  handle->target.device = device;
  handle->target.arch = info.arch;
  handle->target.warp_size = info.warp_size;
  handle->target.multiprocessors = info.multiprocessors;
  handle->target.l2_bytes = info.l2_bytes;
  if (info.shared_per_block_optin != 0) handle->target.shared_per_block = info.shared_per_block_optin;
  log::print(log::Level::info, "handle on device {} ({}, {}, {} SMs)", device, info.name, info.arch,
             info.multiprocessors);
  return handle.release();
}

}  // namespace

extern "C" {

miopenStatus_t miopenCreate(miopenHandle_t* handle) {
  return guarded(__func__, [&] {
    auto& out = out_param(handle, "handle");
    out = create_handle(nullptr);
  });
}

miopenStatus_t miopenCreateWithStream(miopenHandle_t* handle, miopenAcceleratorQueue_t stream) {
  return guarded(__func__, [&] {
    auto& out = out_param(handle, "handle");
    out = create_handle(stream);
  });
}

miopenStatus_t miopenDestroy(miopenHandle_t handle) {
  return guarded(__func__, [&] {
    if (handle != nullptr) destroy_object(checked_cast<HandleObject>(handle, "handle"));
  });
}

miopenStatus_t miopenSetStream(miopenHandle_t handle, miopenAcceleratorQueue_t streamID) {
  return guarded(__func__, [&] { checked_cast<HandleObject>(handle, "handle").stream = streamID; });
}

miopenStatus_t miopenGetStream(miopenHandle_t handle, miopenAcceleratorQueue_t* streamID) {
  return guarded(__func__, [&] {
    auto& h = checked_cast<HandleObject>(handle, "handle");
    out_param(streamID, "streamID") = h.stream;
  });
}

miopenStatus_t miopenSetAllocator(miopenHandle_t handle, miopenAllocatorFunction allocator,
                                  miopenDeallocatorFunction deallocator, void* allocatorContext) {
  return guarded(__func__, [&] {
    auto& h = checked_cast<HandleObject>(handle, "handle");
    h.allocator = allocator;
    h.deallocator = deallocator;
    h.allocator_context = allocatorContext;
  });
}

miopenStatus_t miopenGetKernelTime(miopenHandle_t handle, float* time) {
  return guarded(__func__, [&] {
    auto& h = checked_cast<HandleObject>(handle, "handle");
    out_param(time, "time") = h.kernel_ms;
  });
}

miopenStatus_t miopenEnableProfiling(miopenHandle_t handle, bool enable) {
  return guarded(__func__, [&] {
    auto& h = checked_cast<HandleObject>(handle, "handle");
    if (enable && h.start == nullptr) {
      rt::activate_device(h.device);
      check_hip(hipEventCreate(&h.start), "creating the timing events");
      if (hipError_t err = hipEventCreate(&h.stop); err != hipSuccess) {
        (void)hipEventDestroy(h.start);
        h.start = nullptr;
        check_hip(err, "creating the timing events");
      }
    }
    h.profiling = enable;
  });
}

}  // extern "C"
