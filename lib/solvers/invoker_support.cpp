#include "solvers/invoker_support.h"

#include "common/error.h"
#include "runtime/platform.h"

#include <string>

namespace hipfuse {

std::shared_ptr<const rt::Kernel> load_kernel(const rt::KernelRequest& request, const Target& target,
                                              std::vector<rt::CompileReport>& reports) {
  rt::CompileReport report;
  auto kernel = rt::KernelCompiler::instance().load(request, target.device, &report);
  reports.push_back(report);
  return kernel;
}

int multiprocessors_of(const Target& target) {
  constexpr int kH200Multiprocessors = 132;
  return target.multiprocessors > 0 ? target.multiprocessors : kH200Multiprocessors;
}

std::size_t l2_bytes_of(const Target& target) {
  constexpr std::size_t kH200L2Bytes = std::size_t{60} << 20;
  return target.l2_bytes > 0 ? target.l2_bytes : kH200L2Bytes;
}

std::size_t shared_per_block_of(const Target& target) {
  constexpr std::size_t kH200SharedPerBlock = 227 * 1024;
  if (target.device >= 0 && target.shared_per_block > 0) return target.shared_per_block;
  return kH200SharedPerBlock;
}

void allow_dynamic_shared(const rt::Kernel& kernel, std::size_t bytes) {
  if (bytes > 0) rt::set_max_dynamic_shared_memory(kernel.function(), static_cast<int>(bytes));
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

DeviceScratch::DeviceScratch(int device, std::size_t bytes) {
  rt::activate_device(device);
  void* p = nullptr;
  const hipError_t e = hipMalloc(&p, bytes);
  if (e != hipSuccess) {
    fail(Status::alloc_failed, "cannot allocate " + std::to_string(bytes) + " bytes of kernel scratch on device " +
                                   std::to_string(device) + ": " + hipGetErrorString(e));
  }
  data_ = static_cast<float*>(p);
  bytes_ = bytes;
}

DeviceScratch::~DeviceScratch() {
  if (data_ != nullptr) (void)hipFree(data_);
}

std::unique_ptr<DeviceScratch> zeroed_counters(int device, std::size_t bytes, const char* what) {
  auto counters = std::make_unique<DeviceScratch>(device, bytes);
  const hipError_t e = hipMemset(counters->data(), 0, counters->bytes());
  if (e != hipSuccess) fail(Status::internal_error, std::string("cannot zero the ") + what + ": " + hipGetErrorString(e));
  return counters;
}

}  // namespace hipfuse
