#include "api/boundary.h"

#include "common/log.h"

namespace hipfuse::api {

namespace {
thread_local std::string t_last_error;

const char* status_name(Status status) { return miopenGetErrorString(static_cast<miopenStatus_t>(status)); }
}  // namespace

const std::string& last_error() { return t_last_error; }

void clear_last_error() { t_last_error.clear(); }

miopenStatus_t report_failure(const char* function, Status status, const std::string& message) {
  try {
    t_last_error = std::string(function) + ": " + message;
    log::print(log::Level::error, "{} ({})", t_last_error, status_name(status));
  } catch (...) {
    // Recording the reason must not turn the status into an exception at the C boundary.
  }
  return static_cast<miopenStatus_t>(status);
}

}  // namespace hipfuse::api
