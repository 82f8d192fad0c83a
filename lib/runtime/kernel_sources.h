// The kernel sources hipRTC compiles: embedded into the library at build time, or read
// from a directory named by HIPFUSE_KERNEL_DIR (a development override: edit a kernel,
// rerun, no rebuild).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace hipfuse::rt {

struct EmbeddedFile {
  const char* path;  // relative to kernels/, e.g. "conv_direct.hip" or "common/vendor.h"
  const char* text;
};

extern const EmbeddedFile kEmbeddedKernelFiles[];
extern const std::size_t kEmbeddedKernelFileCount;

struct SourceFile {
  std::string path;
  std::string text;
};

// All kernel files (sources and headers), from the override directory when set.
const std::vector<SourceFile>& kernel_files();

// Reads every .hip and .h under `dir` (the HIPFUSE_KERNEL_DIR override).
std::vector<SourceFile> read_kernel_directory(const std::filesystem::path& dir);

// One file by relative path; throws hipfuse::Error(internal_error) when absent.
const SourceFile& kernel_file(const std::string& path);

// The headers (every .h) offered to hipRTC for #include, by relative path.
std::vector<const SourceFile*> kernel_headers();

}  // namespace hipfuse::rt
