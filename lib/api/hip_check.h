// HIP runtime errors as hipfuse errors: out of memory is AllocFailed, the rest InternalError.
#pragma once

#include "common/error.h"

#include <hip/hip_runtime_api.h>

#include <string>

namespace hipfuse::api {

inline void check_hip(hipError_t err, const char* what) {
  if (err == hipSuccess) return;
  const Status status = err == hipErrorOutOfMemory ? Status::alloc_failed : Status::internal_error;
  fail(status, std::string(what) + ": " + hipGetErrorName(err) + " (" + hipGetErrorString(err) + ")");
}

}  // namespace hipfuse::api
