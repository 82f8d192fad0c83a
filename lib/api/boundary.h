// The C boundary: every extern "C" entry point runs its body through guarded(), which
// turns exceptions into miopenStatus_t, records the reason in a thread-local message
// (hipfuseGetLastErrorMessage) and logs it at MIOPEN_LOG_LEVEL >= 3.
#pragma once

#include "common/error.h"

#include <miopen/miopen.h>

#include <new>
#include <string>

namespace hipfuse::api {

// The thread's last-error message: set by a failing call, cleared by a succeeding one.
const std::string& last_error();
void clear_last_error();

// Records and logs a failure of `function`; returns its status.
miopenStatus_t report_failure(const char* function, Status status, const std::string& message);

template <typename Body>
miopenStatus_t guarded(const char* function, Body&& body) noexcept {
  try {
    clear_last_error();
    body();
    return miopenStatusSuccess;
  } catch (const Error& e) {
    return report_failure(function, e.status(), e.what());
  } catch (const std::bad_alloc&) {
    return report_failure(function, Status::alloc_failed, "out of host memory");
  } catch (const std::exception& e) {
    return report_failure(function, Status::internal_error, std::string("internal error: ") + e.what());
  } catch (...) {
    return report_failure(function, Status::unknown_error, "unknown exception");
  }
}

// The output pointer, or Error(bad_parm) "<name> is null". Outputs are written only
// after every check has passed, so a failing call leaves them untouched.
template <typename T>
T& out_param(T* pointer, const char* name) {
  if (pointer == nullptr) fail(Status::bad_parm, std::string(name) + " (output) is null");
  return *pointer;
}

}  // namespace hipfuse::api
