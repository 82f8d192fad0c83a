// HIP on NVIDIA: the only host file that names CUDA.
//
// HIP's NVIDIA module API (hipModuleLoadDataEx, hipModuleLaunchKernel, ...) is a set of
// inline wrappers over CUDA *driver* calls. Linking libcuda would make every binary fail
// to start on machines without an NVIDIA driver (build machines, CI), so the handful of
// driver entry points those wrappers reference are defined here and forwarded to the real
// ones, looked up at first use through the runtime's cudaGetDriverEntryPointByVersion.
// cudart is linked statically, NVRTC dynamically (it ships with every CUDA install).

#include "runtime/platform.h"

#include "common/env.h"
#include "common/error.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <filesystem>
#include <mutex>
#include <string>

#ifndef HIPFUSE_CUDA_INCLUDE_DIR
#define HIPFUSE_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace {

// The driver ABI version the forwarded signatures below are written against.
constexpr unsigned kDriverAbiVersion = 12000;

template <typename Fn>
Fn driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  cudaError_t err = cudaGetDriverEntryPointByVersion(name, &fn, kDriverAbiVersion, cudaEnableDefault, &found);
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr) return nullptr;
  return reinterpret_cast<Fn>(fn);
}

// Resolves once per entry point; CUDA_ERROR_NOT_INITIALIZED when there is no driver.
#define HIPFUSE_FORWARD(name, params, args)                                  \
  extern "C" CUresult CUDAAPI name params {                                  \
    using Fn = CUresult(CUDAAPI*) params;                                    \
    static const Fn real = driver_entry<Fn>(#name);                          \
    return real != nullptr ? real args : CUDA_ERROR_NOT_INITIALIZED;           \
  }

}  // namespace

HIPFUSE_FORWARD(cuModuleLoadData, (CUmodule * module, const void* image), (module, image))
HIPFUSE_FORWARD(cuModuleLoadDataEx,
                (CUmodule * module, const void* image, unsigned int count, CUjit_option* options,
                 void** values),
                (module, image, count, options, values))
HIPFUSE_FORWARD(cuModuleUnload, (CUmodule module), (module))
HIPFUSE_FORWARD(cuModuleGetFunction, (CUfunction * function, CUmodule module, const char* name),
                (function, module, name))
HIPFUSE_FORWARD(cuLaunchKernel,
                (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                 unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void** params,
                 void** extra),
                (f, gx, gy, gz, bx, by, bz, shared, stream, params, extra))
HIPFUSE_FORWARD(cuFuncGetAttribute, (int* value, CUfunction_attribute attr, CUfunction f), (value, attr, f))
HIPFUSE_FORWARD(cuFuncSetAttribute, (CUfunction f, CUfunction_attribute attr, int value), (f, attr, value))

namespace hipfuse::rt {
namespace {

void check(hipError_t err, const char* what) {
  if (err != hipSuccess) fail(Status::internal_error, std::string(what) + ": " + hipGetErrorString(err));
}

bool has_cuda_headers(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::exists(dir / "cuda_fp16.h", ec);
}

// NVRTC has no default include path; <cuda_fp16.h> and friends come from the toolkit.
std::string cuda_include_dir() {
  static const std::string dir = [] {
    std::vector<std::string> tried;
    if (auto cuda_path = env::get("CUDA_PATH")) {
      auto candidate = std::filesystem::path(*cuda_path) / "include";
      if (has_cuda_headers(candidate)) return candidate.string();
      tried.push_back(candidate.string() + " (from CUDA_PATH)");
    }
    for (const char* candidate : {HIPFUSE_CUDA_INCLUDE_DIR, "/usr/local/cuda/include"}) {
      if (has_cuda_headers(candidate)) return std::string(candidate);
      tried.push_back(candidate);
    }
    std::string message = "CUDA toolkit headers (cuda_fp16.h) not found for run-time compilation; tried:";
    for (const auto& t : tried) message += " " + t;
    message += ". Set CUDA_PATH to the CUDA toolkit directory.";
    return std::string("!") + message;  // reported on use, not at static init
  }();
  if (!dir.empty() && dir[0] == '!') fail(Status::internal_error, dir.substr(1));
  return dir;
}

}  // namespace

const char* platform_name() { return "nvidia"; }

int device_count(std::string* why) {
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess || count == 0) {
    if (why != nullptr) {
      *why = err != hipSuccess ? std::string("no GPU device found (") + hipGetErrorString(err) + ")"
                               : std::string("no GPU device found");
    }
    return 0;
  }
  return count;
}

void activate_device(int device) {
  // The runtime makes the device's primary context current for the thread; the driver
  // calls of the module API then find it. Done once per thread and device.
  thread_local int active = -1;
  if (active == device) return;
  check(hipSetDevice(device), "hipSetDevice");
  check(hipFree(nullptr), "initialising the device context");
  active = device;
}

DeviceInfo device_info(int device) {
  hipDeviceProp_t prop{};
  check(hipGetDeviceProperties(&prop, device), "hipGetDeviceProperties");
  DeviceInfo info;
  info.ordinal = device;
  info.name = prop.name;
  info.arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  info.warp_size = prop.warpSize;
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  int optin = 0;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) == cudaSuccess) {
    info.shared_per_block_optin = static_cast<std::size_t>(optin);
  }
  return info;
}

std::vector<std::string> rtc_platform_options(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "-I" + cuda_include_dir(), "-DHIPFUSE_PLATFORM_NVIDIA=1"};
}

int warp_size_for_arch(const std::string&) { return 32; }

bool is_known_arch(const std::string& arch) {
  // sm_XY / sm_XYa / sm_XYf with a numeric compute capability.
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5) return false;
  std::size_t digits = 0;
  while (3 + digits < arch.size() && std::isdigit(static_cast<unsigned char>(arch[3 + digits]))) ++digits;
  std::string rest = arch.substr(3 + digits);
  return digits >= 2 && (rest.empty() || rest == "a" || rest == "f");
}

std::string arch_specific_target(const std::string& arch) {
  if (arch.empty() || arch.back() == 'a' || arch.back() == 'f') return arch;
  return arch + "a";
}

std::vector<char> rtc_program_code(hiprtcProgram program) {
  // hipRTC's NVIDIA mapping only returns PTX; NVRTC also keeps the CUBIN when compiling for
  // a real sm_XY, which loads without the driver's JIT.
  std::size_t size = 0;
  if (nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS && size > 0) {
    std::vector<char> cubin(size);
    if (nvrtcGetCUBIN(program, cubin.data()) == NVRTC_SUCCESS) return cubin;
  }
  if (nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size == 0) {
    fail(Status::internal_error, "NVRTC produced no code");
  }
  std::vector<char> ptx(size);
  if (nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS) fail(Status::internal_error, "NVRTC returned no PTX");
  return ptx;
}

hipModule_t load_module(const std::vector<char>& code) {
  // The driver JIT-compiles the PTX here; its error log explains a failure.
  char error_log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof(error_log)))};
  hipModule_t module = nullptr;
  hipError_t err = hipModuleLoadDataEx(&module, code.data(), 2, options, values);
  if (err != hipSuccess) {
    // A full device is the caller's to resolve (AllocFailed, as for any device allocation);
    // the failed load is not cached, so a later compile retries it.
    fail(err == hipErrorOutOfMemory ? Status::alloc_failed : Status::internal_error,
         std::string("loading the compiled kernel failed: ") + hipGetErrorString(err) + "\n" + error_log);
  }
  return module;
}

hipError_t launch_kernel(hipFunction_t kernel, dim3 grid, dim3 block, unsigned shared_bytes, hipStream_t stream,
                         void** params, bool early_start) {
  using LaunchEx = CUresult(CUDAAPI*)(const CUlaunchConfig*, CUfunction, void**, void**);
  // Drivers before CUDA 12 have no cuLaunchKernelEx: an ordinary launch there.
  static const LaunchEx launch_ex = driver_entry<LaunchEx>("cuLaunchKernelEx");
  if (!early_start || launch_ex == nullptr) {
    return hipModuleLaunchKernel(kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes, stream,
                                 params, nullptr);
  }
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = block.x;
  config.blockDimY = block.y;
  config.blockDimZ = block.z;
  config.sharedMemBytes = shared_bytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return hipCUResultTohipError(launch_ex(&config, kernel, params, nullptr));
}

bool supports_early_start(const std::string& arch) {
  // sm_XY (XY = major * 10 + minor): griddepcontrol needs compute capability 9.0; kernels
  // compiled for less compile the waits away.
  return is_known_arch(arch) && std::stoi(arch.substr(3)) >= 90;
}

void set_max_dynamic_shared_memory(hipFunction_t kernel, int bytes) {
  CUresult err = cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  if (err != CUDA_SUCCESS) {
    fail(Status::internal_error, "cannot raise the kernel's shared memory to " + std::to_string(bytes) + " bytes");
  }
}

void prefer_shared_memory(hipFunction_t kernel) {
  CUresult err = cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, CU_SHAREDMEM_CARVEOUT_MAX_SHARED);
  if (err != CUDA_SUCCESS) fail(Status::internal_error, "cannot set the kernel's shared memory carveout");
}

int registers_per_thread(hipFunction_t kernel) {
  int registers = 0;
  if (cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel) != CUDA_SUCCESS) {
    fail(Status::internal_error, "cannot read the kernel's register count");
  }
  return registers;
}

bool encode_tensor_map_2d(void* map, const void* base, std::uint64_t columns, std::uint64_t rows,
                          std::uint64_t row_stride_bytes, unsigned box_columns, unsigned box_rows) {
  static_assert(sizeof(CUtensorMap) == 128, "hf::TensorMap (128 bytes, 128-byte aligned) mirrors CUtensorMap");
  using Encode = CUresult(CUDAAPI*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                    const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static const Encode encode = driver_entry<Encode>("cuTensorMapEncodeTiled");
  if (encode == nullptr || reinterpret_cast<std::uintptr_t>(map) % 64 != 0) return false;
  const cuuint64_t dims[2] = {columns, rows};
  const cuuint64_t strides[1] = {row_stride_bytes};  // of the outer dimension; the inner one is dense
  const cuuint32_t box[2] = {box_columns, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  // The element type only sizes the copy (16 bits); zeros are zeros in fp16 and bf16 alike.
  return encode(static_cast<CUtensorMap*>(map), CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void*>(base), dims,
                strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool encode_tensor_map_im2col(void* map, const void* base, const Im2colMap& shape) {
  using Encode = CUresult(CUDAAPI*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                    const cuuint64_t*, const int*, const int*, cuuint32_t, cuuint32_t,
                                    const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static const Encode encode = driver_entry<Encode>("cuTensorMapEncodeIm2col");
  if (encode == nullptr || reinterpret_cast<std::uintptr_t>(map) % 64 != 0) return false;
  const cuuint64_t dims[4] = {shape.dims[0], shape.dims[1], shape.dims[2], shape.dims[3]};
  const cuuint64_t strides[3] = {shape.strides_bytes[0], shape.strides_bytes[1], shape.strides_bytes[2]};
  const cuuint32_t element_strides[4] = {1, shape.element_strides[0], shape.element_strides[1], 1};
  return encode(static_cast<CUtensorMap*>(map), CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void*>(base), dims,
                strides, shape.lower, shape.upper, shape.channels, shape.pixels, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

hipError_t stream_begin_capture(hipStream_t stream) {
  return hipCUDAErrorTohipError(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
}
hipError_t stream_end_capture(hipStream_t stream, hipGraph_t* graph) {
  return hipCUDAErrorTohipError(cudaStreamEndCapture(stream, graph));
}
hipError_t graph_instantiate(hipGraphExec_t* exec, hipGraph_t graph) {
  return hipCUDAErrorTohipError(cudaGraphInstantiate(exec, graph, 0));
}
hipError_t graph_launch(hipGraphExec_t exec, hipStream_t stream) {
  return hipCUDAErrorTohipError(cudaGraphLaunch(exec, stream));
}
hipError_t graph_exec_destroy(hipGraphExec_t exec) { return hipCUDAErrorTohipError(cudaGraphExecDestroy(exec)); }
hipError_t graph_destroy(hipGraph_t graph) { return hipCUDAErrorTohipError(cudaGraphDestroy(graph)); }

}  // namespace hipfuse::rt
