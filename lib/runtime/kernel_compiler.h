// Compile once, run many: turns a kernel request (a kernel source, plan-specific headers
// and defines) into a loaded kernel, through two cache levels:
//   memory (per device, per process) -> disk (DiskCache) -> hipRTC.
// Thread-safe; concurrent requests for the same kernel compile it once.
#pragma once

#include "runtime/digest.h"
#include "runtime/disk_cache.h"
#include "runtime/kernel_sources.h"

#include <hip/hip_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hipfuse::rt {

struct KernelRequest {
  std::string source;                       // kernel file, relative to kernels/, e.g. "conv_direct.hip"
  std::string entry;                        // the extern "C" __global__ function to launch
  std::vector<SourceFile> generated_headers;  // plan-specific headers, e.g. {"hf_plan.h", ...}
  std::vector<std::string> options;         // plan-specific compile options (-D...)
  // Compile for the architecture-specific target (rt::arch_specific_target: sm_90a for
  // sm_90), for kernels that use its own instructions (wgmma).
  bool arch_specific = false;
};

// A loaded kernel: owns its module. Launch only packs and enqueues.
class Kernel {
 public:
  Kernel(hipModule_t module, hipFunction_t function) : module_(module), function_(function) {}
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // `args` points at the kernel's single by-value struct parameter. `early_start`: the kernel
  // may start before the stream's previous kernel ends (rt::launch_kernel); only for kernels
  // that call hf::wait_for_prior_grid() first.
  hipError_t launch(dim3 grid, dim3 block, unsigned shared_bytes, hipStream_t stream, const void* args,
                    bool early_start = false) const;
  hipFunction_t function() const { return function_; }

 private:
  hipModule_t module_;
  hipFunction_t function_;
};

struct CompileReport {
  enum class From { memory, disk, compiler } from = From::compiler;
  double milliseconds = 0;  // wall time of this request (compile + load, or lookup)
  Digest key;
};

struct CacheStats {
  std::uint64_t memory_hits = 0;
  std::uint64_t disk_hits = 0;
  std::uint64_t compiles = 0;         // misses at both levels
  std::uint64_t corrupt_entries = 0;  // disk entries rejected and rebuilt
};

class KernelCompiler {
 public:
  static KernelCompiler& instance();

  // The binary for an architecture, through the disk cache; needs no GPU.
  std::vector<char> binary(const KernelRequest& request, const std::string& arch, int warp_size,
                           CompileReport* report = nullptr);

  // The kernel loaded on `device` (made current first).
  std::shared_ptr<const Kernel> load(const KernelRequest& request, int device, CompileReport* report = nullptr);

  // The full option list hipRTC gets (platform options + common + request options).
  std::vector<std::string> options_for(const KernelRequest& request, const std::string& arch, int warp_size) const;
  Digest key_for(const KernelRequest& request, const std::string& arch, int warp_size) const;

  CacheStats stats() const;
  void reset_stats();
  void clear_memory_cache();
  void set_disk_cache(DiskCache cache);  // tests point it at a temporary directory
  DiskCache disk_cache() const;

 private:
  KernelCompiler();
  std::vector<char> binary_for_key(const KernelRequest& request, const Digest& key, const std::string& arch,
                                   int warp_size, CompileReport::From* from);

  mutable std::mutex mutex_;
  DiskCache disk_;
  std::map<std::pair<int, std::string>, std::shared_future<std::shared_ptr<const Kernel>>> loaded_;
  std::atomic<std::uint64_t> memory_hits_{0}, disk_hits_{0}, compiles_{0}, corrupt_{0};
};

}  // namespace hipfuse::rt
