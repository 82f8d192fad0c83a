// GPU smoke test: a kernel compiled through the runtime layer computes a known result.
#include <doctest/doctest.h>

#include "runtime/kernel_compiler.h"
#include "runtime/platform.h"

#include <hip/hip_runtime.h>

#include <vector>

using namespace hipfuse::rt;

TEST_CASE("smoke: a run-time compiled kernel computes y = a*x + b on the GPU") {
  const int n = 1 << 20;
  std::vector<float> x(n), y(n + 1, -1.0f);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000) * 0.5f - 17.0f;

  DeviceInfo info = device_info(0);
  MESSAGE("device: " << info.name << " (" << info.arch << ", warp " << info.warp_size << ", "
                     << info.multiprocessors << " SMs)");
  CompileReport report;
  auto kernel = KernelCompiler::instance().load({"smoke.hip", "hf_smoke", {}, {}}, 0, &report);
  MESSAGE("compile+load: " << report.milliseconds << " ms");

  float *dx = nullptr, *dy = nullptr;
  REQUIRE(hipMalloc(&dx, n * sizeof(float)) == hipSuccess);
  REQUIRE(hipMalloc(&dy, (n + 1) * sizeof(float)) == hipSuccess);
  REQUIRE(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice) == hipSuccess);
  REQUIRE(hipMemset(dy, 0xff, (n + 1) * sizeof(float)) == hipSuccess);  // poison: NaN
  struct {
    const float* x;
    float* y;
    float a, b;
    long long n;
  } args{dx, dy, 3.0f, 0.25f, n};
  REQUIRE(kernel->launch(dim3((n + 255) / 256), dim3(256), 0, nullptr, &args) == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  REQUIRE(hipMemcpy(y.data(), dy, (n + 1) * sizeof(float), hipMemcpyDeviceToHost) == hipSuccess);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += y[i] != 3.0f * x[i] + 0.25f;
  CHECK(wrong == 0);
  CHECK(y[n] == static_cast<float>(info.warp_size));
  CHECK(hipFree(dx) == hipSuccess);
  CHECK(hipFree(dy) == hipSuccess);

  // The second request for the same kernel is served from memory.
  KernelCompiler::instance().load({"smoke.hip", "hf_smoke", {}, {}}, 0, &report);
  CHECK(report.from == CompileReport::From::memory);
}
