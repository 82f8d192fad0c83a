// The one error type used inside hipfuse. It carries the MIOpen status the C boundary
// returns; the message is what the app reads back through hipfuseGetLastErrorMessage().
#pragma once

#include <stdexcept>
#include <string>

namespace hipfuse {

// Mirrors miopenStatus_t's values; kept apart so internal code needs no public header.
enum class Status : int {
  success = 0,
  not_initialized = 1,
  invalid_value = 2,
  bad_parm = 3,
  alloc_failed = 4,
  internal_error = 5,
  not_implemented = 6,
  unknown_error = 7,
  unsupported_op = 8,
  gpu_operations_skipped = 9,
  version_mismatch = 10,
};

class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const noexcept { return status_; }

 private:
  Status status_;
};

[[noreturn]] inline void fail(Status status, const std::string& message) { throw Error(status, message); }

}  // namespace hipfuse
