// What every family's build() and invoker share: loading the compiled kernels, launch
// geometry helpers, and device scratch owned by an invoker.
#pragma once

#include "runtime/kernel_compiler.h"
#include "solvers/solver.h"

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace hipfuse {

// Loads `request` on target.device and records how it was obtained.
std::shared_ptr<const rt::Kernel> load_kernel(const rt::KernelRequest& request, const Target& target,
                                              std::vector<rt::CompileReport>& reports);

// Multiprocessors to size grids for: the device's, or an H200's when compiling offline.
int multiprocessors_of(const Target& target);
// The device's L2 cache bytes, or an H200's when compiling offline.
std::size_t l2_bytes_of(const Target& target);
// The shared memory a block may have (with the opt-in attribute), or an H200's when compiling offline.
std::size_t shared_per_block_of(const Target& target);

// Lets `kernel` launch with `bytes` of dynamic shared memory. Static and dynamic together may
// not pass 48 KB unless the attribute allows it, so it is set for any request (BN's 48 KB beside
// its 24 KB of static memory failed to launch when it was set only past 48 KB).
void allow_dynamic_shared(const rt::Kernel& kernel, std::size_t bytes);

std::int64_t ceil_div(std::int64_t a, std::int64_t b);

// Whether `p` may be read or written with 16-byte accesses.
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Device memory allocated at build time and owned by one invoker. Executions of the same
// compiled plan share it, so they must be ordered (one stream, or synchronised streams).
class DeviceScratch {
 public:
  DeviceScratch(int device, std::size_t bytes);
  ~DeviceScratch();
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  float* data() const { return data_; }
  unsigned int* counters() const { return reinterpret_cast<unsigned int*>(data_); }  // zeroed_counters' view
  std::size_t bytes() const { return bytes_; }

 private:
  float* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// `bytes` of unsigned counters, zero on return: kernels that count in them re-zero them before
// their launch ends, so each execution (or graph replay) starts from zero. `what` names them in errors.
std::unique_ptr<DeviceScratch> zeroed_counters(int device, std::size_t bytes, const char* what);

}  // namespace hipfuse
