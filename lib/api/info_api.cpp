// Library-wide queries: status names, versions, the last error, devices, kernel cache counts.
#include "api/boundary.h"
#include "api/convert.h"
#include "runtime/kernel_compiler.h"
#include "runtime/platform.h"

#include <hipfuse/hipfuse.h>

#ifndef HIPFUSE_VERSION_STRING
#define HIPFUSE_VERSION_STRING "0.0.0"
#endif

using namespace hipfuse;
using namespace hipfuse::api;

extern "C" {

const char* miopenGetErrorString(miopenStatus_t error) {
  switch (raw_value(error)) {
    case miopenStatusSuccess: return "miopenStatusSuccess";
    case miopenStatusNotInitialized: return "miopenStatusNotInitialized";
    case miopenStatusInvalidValue: return "miopenStatusInvalidValue";
    case miopenStatusBadParm: return "miopenStatusBadParm";
    case miopenStatusAllocFailed: return "miopenStatusAllocFailed";
    case miopenStatusInternalError: return "miopenStatusInternalError";
    case miopenStatusNotImplemented: return "miopenStatusNotImplemented";
    case miopenStatusUnknownError: return "miopenStatusUnknownError";
    case miopenStatusUnsupportedOp: return "miopenStatusUnsupportedOp";
    case miopenStatusGpuOperationsSkipped: return "miopenStatusGpuOperationsSkipped";
    case miopenStatusVersionMismatch: return "miopenStatusVersionMismatch";
    default: break;
  }
  return "Unknown error status";
}

miopenStatus_t miopenGetVersion(size_t* major, size_t* minor, size_t* patch) {
  return guarded(__func__, [&] {
    // As in MIOpen, null pointers are skipped.
    if (major != nullptr) *major = MIOPEN_VERSION_MAJOR;
    if (minor != nullptr) *minor = MIOPEN_VERSION_MINOR;
    if (patch != nullptr) *patch = MIOPEN_VERSION_PATCH;
  });
}

const char* hipfuseGetVersionString(void) { return HIPFUSE_VERSION_STRING; }

const char* hipfuseGetLastErrorMessage(void) { return last_error().c_str(); }

miopenStatus_t hipfuseGetDeviceAvailable(int* count, const char** why) {
  thread_local std::string reason;
  return guarded(__func__, [&] {
    auto& n = out_param(count, "count");
    std::string text;
    const int devices = rt::device_count(&text);
    if (devices != 0) text.clear();
    if (reason != text) reason = text;  // the same text keeps earlier pointers valid
    n = devices;
    if (why != nullptr) *why = reason.c_str();
  });
}

miopenStatus_t hipfuseGetKernelCacheStats(hipfuseKernelCacheStats* stats) {
  return guarded(__func__, [&] {
    auto& out = out_param(stats, "stats");
    const rt::CacheStats s = rt::KernelCompiler::instance().stats();
    out = hipfuseKernelCacheStats{s.memory_hits, s.disk_hits, s.compiles, s.corrupt_entries};
  });
}

miopenStatus_t hipfuseResetKernelCacheStats(void) {
  return guarded(__func__, [&] { rt::KernelCompiler::instance().reset_stats(); });
}

}  // extern "C"
