#include "runtime/kernel_compiler.h"

#include "common/env.h"
#include "common/error.h"
#include "common/log.h"
#include "runtime/platform.h"
#include "runtime/rtc.h"

#include <chrono>
#include <filesystem>
#include <fstream>

namespace hipfuse::rt {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// HIPFUSE_DUMP_SOURCE_DIR (development): what hipRTC is about to compile, written to
// DIR/<cache key>/ as it sees it (the source, every header at its include path, the options on
// one line), so that the kernel can be rebuilt outside the library, e.g. for its registers and
// spills: nvcc -cubin -Xptxas -v $(cat options) -I DIR/KEY -x cu DIR/KEY/SOURCE. A directory
// that cannot be written gets a warning; the compile goes on.
void dump_compile_inputs(const Digest& key, const SourceFile& source, const std::vector<const SourceFile*>& headers,
                         const std::vector<std::string>& options) {
  const auto dir = env::get("HIPFUSE_DUMP_SOURCE_DIR");
  if (!dir) return;
  const std::filesystem::path root = std::filesystem::path(*dir) / key.hex();
  const auto write = [&](const std::string& relative, const std::string& text) {
    const std::filesystem::path path = root / relative;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    return static_cast<bool>(out);
  };
  bool written = write(source.path, source.text);
  for (const SourceFile* header : headers) written = write(header->path, header->text) && written;
  written = write("options", join_options(options) + "\n") && written;
  if (!written) log::print(log::Level::warning, "HIPFUSE_DUMP_SOURCE_DIR: cannot write {}", root.string());
}

}  // namespace

Kernel::~Kernel() {
  if (module_ != nullptr) (void)hipModuleUnload(module_);
}

hipError_t Kernel::launch(dim3 grid, dim3 block, unsigned shared_bytes, hipStream_t stream, const void* args,
                          bool early_start) const {
  void* params[] = {const_cast<void*>(args)};
  return launch_kernel(function_, grid, block, shared_bytes, stream, params, early_start);
}

KernelCompiler& KernelCompiler::instance() {
  static KernelCompiler compiler;
  return compiler;
}

KernelCompiler::KernelCompiler() : disk_(DiskCache::from_environment()) {}

std::vector<std::string> KernelCompiler::options_for(const KernelRequest& request, const std::string& arch,
                                                     int warp_size) const {
  std::vector<std::string> options =
      rtc_platform_options(request.arch_specific ? arch_specific_target(arch) : arch);
  options.push_back("-std=c++17");
  options.push_back("-DHF_WARP_SIZE=" + std::to_string(warp_size));
  options.insert(options.end(), request.options.begin(), request.options.end());
  return options;
}

Digest KernelCompiler::key_for(const KernelRequest& request, const std::string& arch, int warp_size) const {
  Hasher hasher;
  hasher.field("hipfuse-kernel-cache").field(std::to_string(DiskCache::kFormatVersion));
  hasher.field(platform_name()).field(rtc_compiler_version()).field(arch);
  for (const auto& option : options_for(request, arch, warp_size)) hasher.field(option);
  hasher.field(request.entry).field(request.source).field(kernel_file(request.source).text);
  for (const SourceFile* header : kernel_headers()) hasher.field(header->path).field(header->text);
  for (const auto& header : request.generated_headers) hasher.field(header.path).field(header.text);
  return hasher.digest();
}

std::vector<char> KernelCompiler::binary_for_key(const KernelRequest& request, const Digest& key,
                                                 const std::string& arch, int warp_size,
                                                 CompileReport::From* from) {
  DiskCache disk = disk_cache();
  std::vector<char> code;
  switch (disk.read(key, code)) {
    case DiskCache::Lookup::hit:
      ++disk_hits_;
      *from = CompileReport::From::disk;
      return code;
    case DiskCache::Lookup::corrupt:
      ++corrupt_;
      break;
    case DiskCache::Lookup::miss:
      break;
  }
  std::vector<const SourceFile*> headers = kernel_headers();
  for (const auto& header : request.generated_headers) headers.push_back(&header);
  const SourceFile& source = kernel_file(request.source);
  const std::vector<std::string> options = options_for(request, arch, warp_size);
  dump_compile_inputs(key, source, headers, options);
  code = rtc_compile(source, headers, options);
  ++compiles_;
  *from = CompileReport::From::compiler;
  disk.write(key, code);
  return code;
}

std::vector<char> KernelCompiler::binary(const KernelRequest& request, const std::string& arch, int warp_size,
                                         CompileReport* report) {
  auto start = std::chrono::steady_clock::now();
  Digest key = key_for(request, arch, warp_size);
  CompileReport::From from{};
  std::vector<char> code = binary_for_key(request, key, arch, warp_size, &from);
  if (report != nullptr) *report = {from, elapsed_ms(start), key};
  return code;
}

std::shared_ptr<const Kernel> KernelCompiler::load(const KernelRequest& request, int device, CompileReport* report) {
  auto start = std::chrono::steady_clock::now();
  activate_device(device);
  DeviceInfo info = device_info(device);
  Digest key = key_for(request, info.arch, info.warp_size);
  auto map_key = std::make_pair(device, key.hex());

  std::promise<std::shared_ptr<const Kernel>> promise;
  std::shared_future<std::shared_ptr<const Kernel>> future;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = loaded_.find(map_key);
    if (it != loaded_.end()) {
      future = it->second;
    } else {
      future = promise.get_future().share();
      loaded_.emplace(map_key, future);
      owner = true;
    }
  }
  if (!owner) {
    ++memory_hits_;
    auto kernel = future.get();  // rethrows the owner's failure
    if (report != nullptr) *report = {CompileReport::From::memory, elapsed_ms(start), key};
    return kernel;
  }
  try {
    CompileReport::From from{};
    std::vector<char> code = binary_for_key(request, key, info.arch, info.warp_size, &from);
    hipModule_t module = load_module(code);
    hipFunction_t function = nullptr;
    if (hipModuleGetFunction(&function, module, request.entry.c_str()) != hipSuccess) {
      (void)hipModuleUnload(module);
      fail(Status::internal_error, "kernel '" + request.entry + "' not found in the module built from " +
                                       request.source);
    }
    auto kernel = std::make_shared<const Kernel>(module, function);
    promise.set_value(kernel);
    if (report != nullptr) *report = {from, elapsed_ms(start), key};
    log::print(log::Level::info2, "kernel {} from {} ready in {:.1f} ms", request.entry, request.source,
               elapsed_ms(start));
    return kernel;
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(mutex_);
    loaded_.erase(map_key);  // a later request may retry (e.g. after a transient failure)
    throw;
  }
}

CacheStats KernelCompiler::stats() const {
  return {memory_hits_.load(), disk_hits_.load(), compiles_.load(), corrupt_.load()};
}

void KernelCompiler::reset_stats() {
  memory_hits_ = 0;
  disk_hits_ = 0;
  compiles_ = 0;
  corrupt_ = 0;
}

void KernelCompiler::clear_memory_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  loaded_.clear();
}

void KernelCompiler::set_disk_cache(DiskCache cache) {
  std::lock_guard<std::mutex> lock(mutex_);
  disk_ = std::move(cache);
}

DiskCache KernelCompiler::disk_cache() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return disk_;
}

}  // namespace hipfuse::rt
