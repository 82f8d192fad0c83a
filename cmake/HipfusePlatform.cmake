# The HIP platform layer: which HIP headers, which runtime libraries, which defines.
#
# NVIDIA: HIP's portable headers (Debian's libamdhip64-dev) map HIP onto the CUDA runtime
# and hipRTC onto NVRTC. HIP 5.2's NVIDIA runtime header predates CUDA 13, so a patched
# copy is generated into the build tree and put first on the include path. libcuda is
# never linked (it only exists where a driver is installed); the few driver entry points
# HIP's module API calls are resolved at run time (lib/runtime/platform_nvidia.cpp).
#
# AMD: ROCm's hip::host and hiprtc packages. Kept buildable, untested by this project.

add_library(hipfuse_platform INTERFACE)

if(HIPFUSE_PLATFORM STREQUAL "nvidia")
  find_package(CUDAToolkit 12 REQUIRED)
  find_path(HIP_INCLUDE_DIR hip/hip_runtime.h PATHS /usr/include /opt/rocm/include REQUIRED)
  set(_hip_nv_header ${HIP_INCLUDE_DIR}/hip/nvidia_detail/nvidia_hip_runtime_api.h)
  if(NOT EXISTS ${_hip_nv_header})
    message(FATAL_ERROR "HIP's NVIDIA runtime header not found at ${_hip_nv_header} (install libamdhip64-dev)")
  endif()
  set(HIPFUSE_PATCHED_HIP_DIR ${PROJECT_BINARY_DIR}/hip-nvidia-cuda13)
  include(PatchHipNvidiaHeader)
  hipfuse_patch_hip_nvidia_header(${_hip_nv_header}
    ${HIPFUSE_PATCHED_HIP_DIR}/hip/nvidia_detail/nvidia_hip_runtime_api.h)

  target_compile_definitions(hipfuse_platform INTERFACE __HIP_PLATFORM_NVIDIA__)
  # Patched header first, then HIP, then CUDA's headers (HIP's NVIDIA path includes them).
  target_include_directories(hipfuse_platform SYSTEM INTERFACE
    $<BUILD_INTERFACE:${HIPFUSE_PATCHED_HIP_DIR}>
    $<INSTALL_INTERFACE:include/hipfuse/hip-nvidia-cuda13>
    ${HIP_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
  # NVRTC by file, not CUDA::nvrtc: that target drags in libcuda (the driver stub).
  target_link_libraries(hipfuse_platform INTERFACE CUDA::cudart_static "${CUDA_nvrtc_LIBRARY}" ${CMAKE_DL_LIBS})
  # Where NVRTC finds <cuda_fp16.h> & co. at run time if CUDA_PATH is unset.
  set(HIPFUSE_CUDA_INCLUDE_DIR ${CUDAToolkit_INCLUDE_DIRS})
  list(GET HIPFUSE_CUDA_INCLUDE_DIR 0 HIPFUSE_CUDA_INCLUDE_DIR)
elseif(HIPFUSE_PLATFORM STREQUAL "amd")
  find_package(hip REQUIRED)
  find_package(hiprtc REQUIRED)
  target_compile_definitions(hipfuse_platform INTERFACE __HIP_PLATFORM_AMD__)
  target_link_libraries(hipfuse_platform INTERFACE hip::host hiprtc::hiprtc)
  set(HIPFUSE_CUDA_INCLUDE_DIR "")
else()
  message(FATAL_ERROR "HIPFUSE_PLATFORM must be nvidia or amd, not '${HIPFUSE_PLATFORM}'")
endif()
