#include "runtime/kernel_sources.h"

#include "common/env.h"
#include "common/error.h"
#include "common/log.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace hipfuse::rt {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<SourceFile> read_kernel_directory(const std::filesystem::path& dir) {
  std::vector<SourceFile> files;
  if (!std::filesystem::is_directory(dir)) {
    fail(Status::internal_error, "HIPFUSE_KERNEL_DIR=" + dir.string() + " is not a directory");
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    std::string rel = std::filesystem::relative(entry.path(), dir).generic_string();
    if (!entry.is_regular_file() || !(ends_with(rel, ".hip") || ends_with(rel, ".h"))) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    files.push_back({rel, text.str()});
  }
  log::print(log::Level::info, "kernel sources read from {} ({} files)", dir.string(), files.size());
  return files;
}

namespace {

std::vector<SourceFile> load_files() {
  if (auto dir = env::get("HIPFUSE_KERNEL_DIR")) return read_kernel_directory(*dir);
  std::vector<SourceFile> files;
  files.reserve(kEmbeddedKernelFileCount);
  for (std::size_t i = 0; i < kEmbeddedKernelFileCount; ++i) {
    files.push_back({kEmbeddedKernelFiles[i].path, kEmbeddedKernelFiles[i].text});
  }
  return files;
}

}  // namespace

const std::vector<SourceFile>& kernel_files() {
  static const std::vector<SourceFile> files = load_files();
  return files;
}

const SourceFile& kernel_file(const std::string& path) {
  for (const auto& file : kernel_files()) {
    if (file.path == path) return file;
  }
  fail(Status::internal_error, "kernel source '" + path + "' is not among the embedded kernel files");
}

std::vector<const SourceFile*> kernel_headers() {
  std::vector<const SourceFile*> headers;
  for (const auto& file : kernel_files()) {
    if (ends_with(file.path, ".h")) headers.push_back(&file);
  }
  return headers;
}

}  // namespace hipfuse::rt
