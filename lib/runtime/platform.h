// The platform layer: everything that differs between HIP on NVIDIA and HIP on AMD on
// the host side lives behind this header (platform_nvidia.cpp / platform_amd.cpp).
#pragma once

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hipfuse::rt {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string arch;          // "sm_90", "gfx90a", ...: what hipRTC targets
  int warp_size = 0;         // from the device, never assumed
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_per_block_optin = 0;
};

// "nvidia" or "amd".
const char* platform_name();

// Number of usable GPUs. 0 when there is none or no driver; `why` then says which.
int device_count(std::string* why);

// Makes `device` current on the calling thread with a live context (HIP's module API on
// NVIDIA needs one before the first module load). Cheap when already current.
void activate_device(int device);

DeviceInfo device_info(int device);

// hipRTC options that depend on the platform: target architecture, include paths,
// platform macro. Throws hipfuse::Error when the toolkit headers cannot be found.
std::vector<std::string> rtc_platform_options(const std::string& arch);

// Warp size for an architecture named without a device (offline compiles).
int warp_size_for_arch(const std::string& arch);
bool is_known_arch(const std::string& arch);

// The architecture-specific target of `arch`, whose code uses instructions that only that
// architecture has and runs nowhere else (NVIDIA: sm_90 -> sm_90a, for wgmma); `arch`
// itself where the platform has no such targets.
std::string arch_specific_target(const std::string& arch);

// The code of a successfully compiled hipRTC program: on NVIDIA a CUBIN when the target is
// a real architecture (no JIT at load, so a cache hit costs milliseconds), else PTX.
std::vector<char> rtc_program_code(hiprtcProgram program);

// Loads a compiled code object; on failure throws with the loader's log.
hipModule_t load_module(const std::vector<char>& code);

// Launches a loaded kernel; `params` as for hipModuleLaunchKernel. With `early_start` the
// kernel's blocks may be scheduled while the stream's previous kernel is still running
// (NVIDIA: programmatic dependent launch), so the launch gap and the previous kernel's last
// wave overlap its start; the kernel must then call hf::wait_for_prior_grid() before it
// touches memory (kernels/common/vendor.h). Where the platform cannot start kernels early
// (supports_early_start), an ordinary launch.
hipError_t launch_kernel(hipFunction_t kernel, dim3 grid, dim3 block, unsigned shared_bytes, hipStream_t stream,
                         void** params, bool early_start);
// Whether kernels built for `arch` may be launched with `early_start` (NVIDIA: sm_90 on).
bool supports_early_start(const std::string& arch);

// Allows a kernel more than the default dynamic shared memory.
void set_max_dynamic_shared_memory(hipFunction_t kernel, int bytes);

// Asks that a multiprocessor running `kernel` keep the most of its L1 / shared memory as shared
// memory, though the kernel uses little: a kernel that needs much can then run beside it
// (a multiprocessor changes the split only once idle). A no-op where shared memory is apart.
void prefer_shared_memory(hipFunction_t kernel);

// Registers a thread of `kernel` uses, as compiled.
int registers_per_thread(hipFunction_t kernel);

// A 2-D tensor map (128 bytes at `map`, 64-byte aligned at least: hf::TensorMap) over `rows` rows of
// `columns` 16-bit values starting at `base`, rows `row_stride_bytes` apart, that copies boxes
// of `box_columns` x `box_rows` values (box_columns * 2 = 128 bytes) into shared memory with
// the 128-byte swizzle, elements outside the tensor read as zeros. False where the platform
// has no tensor maps or the encoder refuses the arguments (alignment, ranges).
bool encode_tensor_map_2d(void* map, const void* base, std::uint64_t columns, std::uint64_t rows,
                          std::uint64_t row_stride_bytes, unsigned box_columns, unsigned box_rows);

// An im2col tensor map over a channels-last 4-D tensor of 16-bit values at `base`: `dims` are
// {channels, width, height, images} (channels dense), `strides_bytes` those of a pixel, a row
// and an image. Each copy gathers `pixels` consecutive convolution windows (w fastest, then
// h, then the image; their origins from `lower` {w, h} to `upper` {w, h} past the last pixel
// of the tensor, `element_strides` {w, h} apart) at one filter offset, `channels` values of
// each (channels * 2 = 128 bytes), into shared memory with the 128-byte swizzle; elements
// outside the tensor read as zeros (the convolution's padding). False where the platform has
// no tensor maps or the encoder refuses the arguments.
struct Im2colMap {
  std::uint64_t dims[4];
  std::uint64_t strides_bytes[3];
  int lower[2], upper[2];
  unsigned element_strides[2];
  unsigned channels, pixels;
};
bool encode_tensor_map_im2col(void* map, const void* base, const Im2colMap& shape);

// Stream capture into a graph and its replay, for code that checks that execution is
// capture-safe. (HIP 5.2's NVIDIA header declares these for nvcc only.)
hipError_t stream_begin_capture(hipStream_t stream);
hipError_t stream_end_capture(hipStream_t stream, hipGraph_t* graph);
hipError_t graph_instantiate(hipGraphExec_t* exec, hipGraph_t graph);
hipError_t graph_launch(hipGraphExec_t exec, hipStream_t stream);
hipError_t graph_exec_destroy(hipGraphExec_t exec);
hipError_t graph_destroy(hipGraph_t graph);

}  // namespace hipfuse::rt
