// The kernel compiler's disk cache moved to a fresh directory for one test's lifetime: the
// previous cache is restored and the directory removed when it ends.
#pragma once

#include "runtime/disk_cache.h"
#include "runtime/kernel_compiler.h"

#include <filesystem>

namespace hipfuse::test {

class FreshKernelCache {
 public:
  // `enabled`: false makes every request really compile; true caches within the test only.
  FreshKernelCache(const char* name, bool enabled)
      : dir_(std::filesystem::temp_directory_path() / name), saved_(rt::KernelCompiler::instance().disk_cache()) {
    std::filesystem::remove_all(dir_);
    rt::KernelCompiler::instance().set_disk_cache(rt::DiskCache(dir_, enabled));
  }
  ~FreshKernelCache() {
    rt::KernelCompiler::instance().set_disk_cache(saved_);
    std::filesystem::remove_all(dir_);
  }
  FreshKernelCache(const FreshKernelCache&) = delete;
  FreshKernelCache& operator=(const FreshKernelCache&) = delete;

 private:
  std::filesystem::path dir_;
  rt::DiskCache saved_;
};

}  // namespace hipfuse::test
