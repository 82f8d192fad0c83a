// HIP on AMD (ROCm). Kept buildable; not tested by this project (no AMD toolchain or GPU
// in its CI). Everything here is plain HIP: ROCm provides the module API natively.

#include "runtime/platform.h"

#include "common/error.h"

#include <string>

namespace hipfuse::rt {
namespace {

void check(hipError_t err, const char* what) {
  if (err != hipSuccess) fail(Status::internal_error, std::string(what) + ": " + hipGetErrorString(err));
}

}  // namespace

const char* platform_name() { return "amd"; }

int device_count(std::string* why) {
  int count = 0;
  hipError_t err = hipGetDeviceCount(&count);
  if (err != hipSuccess || count == 0) {
    if (why != nullptr) *why = "no GPU device found";
    return 0;
  }
  return count;
}

void activate_device(int device) {
  thread_local int active = -1;
  if (active == device) return;
  check(hipSetDevice(device), "hipSetDevice");
  active = device;
}

DeviceInfo device_info(int device) {
  hipDeviceProp_t prop{};
  check(hipGetDeviceProperties(&prop, device), "hipGetDeviceProperties");
  DeviceInfo info;
  info.ordinal = device;
  info.name = prop.name;
  std::string arch = prop.gcnArchName;
  info.arch = arch.substr(0, arch.find(':'));
  info.warp_size = prop.warpSize;
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.shared_per_block_optin = prop.sharedMemPerBlock;
  return info;
}

std::vector<std::string> rtc_platform_options(const std::string& arch) {
  return {"--offload-arch=" + arch, "-DHIPFUSE_PLATFORM_AMD=1"};
}

int warp_size_for_arch(const std::string& arch) {
  // CDNA (gfx9) runs wave64; RDNA (gfx10+) runs wave32 under hipRTC's defaults.
  return arch.rfind("gfx9", 0) == 0 ? 64 : 32;
}

bool is_known_arch(const std::string& arch) { return arch.rfind("gfx", 0) == 0 && arch.size() >= 6; }

std::string arch_specific_target(const std::string& arch) { return arch; }

std::vector<char> rtc_program_code(hiprtcProgram program) {
  std::size_t size = 0;
  if (hiprtcGetCodeSize(program, &size) != HIPRTC_SUCCESS || size == 0) {
    fail(Status::internal_error, "hipRTC produced no code");
  }
  std::vector<char> code(size);
  if (hiprtcGetCode(program, code.data()) != HIPRTC_SUCCESS) fail(Status::internal_error, "hipRTC returned no code");
  return code;
}

hipModule_t load_module(const std::vector<char>& code) {
  hipModule_t module = nullptr;
  const hipError_t err = hipModuleLoadData(&module, code.data());
  if (err != hipSuccess) {
    // Out of device memory is AllocFailed, as for any device allocation.
    fail(err == hipErrorOutOfMemory ? Status::alloc_failed : Status::internal_error,
         std::string("loading the compiled kernel failed: ") + hipGetErrorString(err));
  }
  return module;
}

hipError_t launch_kernel(hipFunction_t kernel, dim3 grid, dim3 block, unsigned shared_bytes, hipStream_t stream,
                         void** params, bool /*early_start: no early start here*/) {
  return hipModuleLaunchKernel(kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes, stream,
                               params, nullptr);
}
bool supports_early_start(const std::string&) { return false; }

void set_max_dynamic_shared_memory(hipFunction_t, int) {}
void prefer_shared_memory(hipFunction_t) {}  // LDS is not carved out of the L1
int registers_per_thread(hipFunction_t kernel) {
  int registers = 0;
  if (hipFuncGetAttribute(&registers, HIP_FUNC_ATTRIBUTE_NUM_REGS, kernel) != hipSuccess) {
    fail(Status::internal_error, "cannot read the kernel's register count");
  }
  return registers;
}

// No tensor maps: the kernels that would use them (sm_90 warpgroup tiles) never run here.
bool encode_tensor_map_2d(void*, const void*, std::uint64_t, std::uint64_t, std::uint64_t, unsigned, unsigned) {
  return false;
}
bool encode_tensor_map_im2col(void*, const void*, const Im2colMap&) { return false; }

hipError_t stream_begin_capture(hipStream_t stream) { return hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal); }
hipError_t stream_end_capture(hipStream_t stream, hipGraph_t* graph) { return hipStreamEndCapture(stream, graph); }
hipError_t graph_instantiate(hipGraphExec_t* exec, hipGraph_t graph) {
  return hipGraphInstantiate(exec, graph, nullptr, nullptr, 0);
}
hipError_t graph_launch(hipGraphExec_t exec, hipStream_t stream) { return hipGraphLaunch(exec, stream); }
hipError_t graph_exec_destroy(hipGraphExec_t exec) { return hipGraphExecDestroy(exec); }
hipError_t graph_destroy(hipGraph_t graph) { return hipGraphDestroy(graph); }

}  // namespace hipfuse::rt
