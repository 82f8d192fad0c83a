// The C API on a GPU: handles, compile and execute of a conv+bias+activation plan checked
// against a host loop, re-binding arguments after compile, profiling, streams, the
// residual-add extension, the one-shot call with alpha1/alpha2, and the checks Execute
// makes on a compiled plan.
#include <doctest/doctest.h>

#include "api/objects.h"

#include <hipfuse/hipfuse.h>
#include <miopen/miopen.h>

#include <hip/hip_runtime_api.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

#define REQUIRE_OK(expr)                                                                  \
  do {                                                                                    \
    const miopenStatus_t status_ = (expr);                                                \
    INFO(#expr, ": ", miopenGetErrorString(status_), ": ", hipfuseGetLastErrorMessage()); \
    REQUIRE(status_ == miopenStatusSuccess);                                              \
  } while (0)

struct Quiet {
  Quiet() { setenv("MIOPEN_LOG_LEVEL", "1", 1); }
  ~Quiet() { unsetenv("MIOPEN_LOG_LEVEL"); }
};

struct Buffer {
  void* p = nullptr;
  std::size_t count = 0;
  explicit Buffer(const std::vector<float>& host) : count(host.size()) {
    REQUIRE(hipMalloc(&p, count * sizeof(float)) == hipSuccess);
    upload(host);
  }
  explicit Buffer(std::size_t n) : count(n) {
    REQUIRE(hipMalloc(&p, count * sizeof(float)) == hipSuccess);
    REQUIRE(hipMemset(p, 0xff, count * sizeof(float)) == hipSuccess);  // NaN until written
  }
  ~Buffer() { (void)hipFree(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void upload(const std::vector<float>& host) {
    REQUIRE(hipMemcpy(p, host.data(), count * sizeof(float), hipMemcpyHostToDevice) == hipSuccess);
  }
  std::vector<float> download() const {
    std::vector<float> host(count);
    REQUIRE(hipDeviceSynchronize() == hipSuccess);
    REQUIRE(hipMemcpy(host.data(), p, count * sizeof(float), hipMemcpyDeviceToHost) == hipSuccess);
    return host;
  }
};

// Small integers keep every fp32 product and sum exact.
std::vector<float> small_ints(std::size_t n, int seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>((i * 7 + seed * 13) % 11) - 5);
  return v;
}

constexpr int N = 2, C = 4, H = 8, W = 8, K = 8, R = 3, S = 3;

// y = act(alpha1 * conv(x, w) + alpha2 * z + bias), conv 3x3 pad 1 stride 1, NCHW.
std::vector<float> reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias,
                             miopenActivationMode_t mode, double act_alpha, double alpha1 = 1,
                             const std::vector<float>* z = nullptr, double alpha2 = 0) {
  std::vector<float> y(static_cast<std::size_t>(N * K * H * W));
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int p = 0; p < H; ++p)
        for (int q = 0; q < W; ++q) {
          double acc = 0;
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                const int ih = p - 1 + r, iw = q - 1 + s;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += static_cast<double>(x[static_cast<std::size_t>(((n * C + c) * H + ih) * W + iw)]) *
                       w[static_cast<std::size_t>(((k * C + c) * R + r) * S + s)];
              }
          const auto i = static_cast<std::size_t>(((n * K + k) * H + p) * W + q);
          double v = alpha1 * acc + bias[static_cast<std::size_t>(k)];
          if (z != nullptr) v = alpha1 * acc + alpha2 * (*z)[i] + bias[static_cast<std::size_t>(k)];
          if (mode == miopenActivationRELU) v = v > 0 ? v : 0;
          if (mode == miopenActivationLEAKYRELU) v = v > 0 ? v : act_alpha * v;
          y[i] = static_cast<float>(v);
        }
  return y;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 1e-3f * (1 + std::fabs(want[i])))) {
      if (bad++ < 5) MESSAGE("y[" << i << "] = " << got[i] << ", expected " << want[i]);
    }
  }
  CHECK(bad == 0);
}

struct Descriptors {
  miopenTensorDescriptor_t x{}, w{}, b{}, y{}, y_wrong{};
  miopenConvolutionDescriptor_t conv{};
  Descriptors() {
    for (auto* d : {&x, &w, &b, &y, &y_wrong}) REQUIRE(miopenCreateTensorDescriptor(d) == miopenStatusSuccess);
    REQUIRE_OK(miopenSet4dTensorDescriptor(x, miopenFloat, N, C, H, W));
    REQUIRE_OK(miopenSet4dTensorDescriptor(w, miopenFloat, K, C, R, S));
    REQUIRE_OK(miopenSet4dTensorDescriptor(b, miopenFloat, 1, K, 1, 1));
    REQUIRE_OK(miopenSet4dTensorDescriptor(y, miopenFloat, N, K, H, W));
    REQUIRE_OK(miopenSet4dTensorDescriptor(y_wrong, miopenFloat, N, K, H, W + 1));
    REQUIRE_OK(miopenCreateConvolutionDescriptor(&conv));
    REQUIRE_OK(miopenInitConvolutionDescriptor(conv, miopenConvolution, 1, 1, 1, 1, 1, 1));
  }
  ~Descriptors() {
    for (auto d : {x, w, b, y, y_wrong}) miopenDestroyTensorDescriptor(d);
    miopenDestroyConvolutionDescriptor(conv);
  }
};

struct Handle {
  miopenHandle_t h{};
  Handle() { REQUIRE_OK(miopenCreate(&h)); }
  ~Handle() { miopenDestroy(h); }
};

// conv -> bias -> activation, compiled.
struct CbaPlan {
  miopenFusionPlanDescriptor_t plan{};
  miopenFusionOpDescriptor_t conv_op{}, bias_op{}, act_op{};
  CbaPlan(miopenHandle_t h, const Descriptors& d, miopenActivationMode_t mode) {
    REQUIRE_OK(miopenCreateFusionPlan(&plan, miopenVerticalFusion, d.x));
    REQUIRE_OK(miopenCreateOpConvForward(plan, &conv_op, d.conv, d.w));
    REQUIRE_OK(miopenCreateOpBiasForward(plan, &bias_op, d.b));
    REQUIRE_OK(miopenCreateOpActivationForward(plan, &act_op, mode));
    REQUIRE_OK(miopenCompileFusionPlan(h, plan));
  }
  ~CbaPlan() { miopenDestroyFusionPlan(plan); }
};

struct Args {
  miopenOperatorArgs_t a{};
  Args() { REQUIRE_OK(miopenCreateOperatorArgs(&a)); }
  ~Args() { miopenDestroyOperatorArgs(a); }
};

}  // namespace

TEST_CASE("api: a handle knows its device, target and stream") {
  Handle handle;
  const auto& object = *static_cast<hipfuse::api::HandleObject*>(handle.h);
  CHECK(object.target.device == object.device);
  CHECK(object.target.arch.rfind("sm_", 0) == 0);
  CHECK(object.target.warp_size > 0);
  CHECK(object.target.multiprocessors > 0);
  MESSAGE("handle target: " << object.target.arch << ", " << object.target.multiprocessors << " SMs");

  hipStream_t stream{};
  REQUIRE(hipStreamCreate(&stream) == hipSuccess);
  miopenHandle_t with_stream{};
  REQUIRE_OK(miopenCreateWithStream(&with_stream, stream));
  miopenAcceleratorQueue_t got{};
  REQUIRE_OK(miopenGetStream(with_stream, &got));
  CHECK(got == stream);
  REQUIRE_OK(miopenDestroy(with_stream));
  REQUIRE(hipStreamDestroy(stream) == hipSuccess);
}

TEST_CASE("api: conv+bias+activation plans compute what the host loop computes") {
  Handle handle;
  Descriptors d;
  const auto x = small_ints(N * C * H * W, 1), w = small_ints(K * C * R * S, 2), bias = small_ints(K, 3);
  Buffer dx(x), dw(w), db(bias), dy(static_cast<std::size_t>(N * K * H * W));
  for (auto [mode, act_alpha] : {std::pair{miopenActivationRELU, 0.0}, std::pair{miopenActivationLEAKYRELU, 0.25}}) {
    CAPTURE(mode);
    CbaPlan plan(handle.h, d, mode);
    hipfuseFusionPlanInfo info{};
    REQUIRE_OK(hipfuseGetFusionPlanInfo(plan.plan, &info));
    CHECK(info.compiled == 1);
    CHECK(std::string(info.solver).size() > 0);
    CHECK(info.kernelLaunches >= 1);
    MESSAGE("plan [" << std::string(info.key) << "] -> " << std::string(info.solver) << ", " << info.kernelLaunches << " launch(es), "
                     << info.compileMs << " ms");
    Args args;
    const double one = 1.0, zero = 0.0;  // legacy callers pass double*: ignored
    REQUIRE_OK(miopenSetOpArgsConvForward(args.a, plan.conv_op, &one, &zero, dw.p));
    REQUIRE_OK(miopenSetOpArgsBiasForward(args.a, plan.bias_op, &one, &zero, db.p));
    REQUIRE_OK(miopenSetOpArgsActivForward(args.a, plan.act_op, &one, &zero, act_alpha, 0, 0));
    REQUIRE_OK(miopenExecuteFusionPlan(handle.h, plan.plan, d.x, dx.p, d.y, dy.p, args.a));
    check_close(dy.download(), reference(x, w, bias, mode, act_alpha));
  }
}

TEST_CASE("api: arguments re-bound after compile take effect without recompiling") {
  Handle handle;
  Descriptors d;
  CbaPlan plan(handle.h, d, miopenActivationRELU);
  const auto x = small_ints(N * C * H * W, 4), w1 = small_ints(K * C * R * S, 5), w2 = small_ints(K * C * R * S, 6);
  const auto b1 = small_ints(K, 7), b2 = small_ints(K, 8);
  Buffer dx(x), dw1(w1), dw2(w2), db1(b1), db2(b2), dy(static_cast<std::size_t>(N * K * H * W));
  Args args;
  REQUIRE_OK(miopenSetOpArgsConvForward(args.a, plan.conv_op, nullptr, nullptr, dw1.p));
  REQUIRE_OK(miopenSetOpArgsBiasForward(args.a, plan.bias_op, nullptr, nullptr, db1.p));
  REQUIRE_OK(miopenSetOpArgsActivForward(args.a, plan.act_op, nullptr, nullptr, 0, 0, 0));
  REQUIRE_OK(miopenExecuteFusionPlan(handle.h, plan.plan, d.x, dx.p, d.y, dy.p, args.a));
  check_close(dy.download(), reference(x, w1, b1, miopenActivationRELU, 0));

  hipfuseKernelCacheStats before{}, after{};
  REQUIRE_OK(hipfuseGetKernelCacheStats(&before));
  REQUIRE_OK(miopenSetOpArgsConvForward(args.a, plan.conv_op, nullptr, nullptr, dw2.p));
  REQUIRE_OK(miopenSetOpArgsBiasForward(args.a, plan.bias_op, nullptr, nullptr, db2.p));
  REQUIRE_OK(miopenExecuteFusionPlan(handle.h, plan.plan, d.x, dx.p, d.y, dy.p, args.a));
  check_close(dy.download(), reference(x, w2, b2, miopenActivationRELU, 0));
  REQUIRE_OK(hipfuseGetKernelCacheStats(&after));
  CHECK(after.compiles == before.compiles);
  CHECK(after.memoryHits == before.memoryHits);
}

TEST_CASE("api: compiling the same plan again hits the kernel cache") {
  Handle handle;
  Descriptors d;
  CbaPlan first(handle.h, d, miopenActivationRELU);
  hipfuseKernelCacheStats before{}, after{};
  REQUIRE_OK(hipfuseGetKernelCacheStats(&before));
  CbaPlan second(handle.h, d, miopenActivationRELU);
  REQUIRE_OK(hipfuseGetKernelCacheStats(&after));
  CHECK(after.compiles == before.compiles);
  CHECK(after.memoryHits > before.memoryHits);
  hipfuseFusionPlanInfo info{};
  REQUIRE_OK(hipfuseGetFusionPlanInfo(second.plan, &info));
  CHECK(info.cacheHit == 1);
}

TEST_CASE("api: profiling times each execution; streams are honoured") {
  Handle handle;
  Descriptors d;
  CbaPlan plan(handle.h, d, miopenActivationRELU);
  const auto x = small_ints(N * C * H * W, 9), w = small_ints(K * C * R * S, 10), bias = small_ints(K, 11);
  Buffer dx(x), dw(w), db(bias), dy(static_cast<std::size_t>(N * K * H * W));
  Args args;
  REQUIRE_OK(miopenSetOpArgsConvForward(args.a, plan.conv_op, nullptr, nullptr, dw.p));
  REQUIRE_OK(miopenSetOpArgsBiasForward(args.a, plan.bias_op, nullptr, nullptr, db.p));
  REQUIRE_OK(miopenSetOpArgsActivForward(args.a, plan.act_op, nullptr, nullptr, 0, 0, 0));

  float ms = -1;
  REQUIRE_OK(miopenGetKernelTime(handle.h, &ms));
  CHECK(ms == 0.0f);
  REQUIRE_OK(miopenEnableProfiling(handle.h, true));
  REQUIRE_OK(miopenExecuteFusionPlan(handle.h, plan.plan, d.x, dx.p, d.y, dy.p, args.a));
  REQUIRE_OK(miopenGetKernelTime(handle.h, &ms));
  CHECK(ms > 0.0f);
  CHECK(ms < 1000.0f);
  MESSAGE("kernel time: " << ms << " ms");
  REQUIRE_OK(miopenEnableProfiling(handle.h, false));
  float again = -1;
  REQUIRE_OK(miopenExecuteFusionPlan(handle.h, plan.plan, d.x, dx.p, d.y, dy.p, args.a));
  REQUIRE_OK(miopenGetKernelTime(handle.h, &again));
  CHECK(again == ms);  // untimed executions leave it

  hipStream_t stream{};
  REQUIRE(hipStreamCreate(&stream) == hipSuccess);
  REQUIRE_OK(miopenSetStream(handle.h, stream));
  REQUIRE(hipMemset(dy.p, 0xff, dy.count * sizeof(float)) == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  REQUIRE_OK(miopenEnableProfiling(handle.h, true));  // timed on the handle's stream
  REQUIRE_OK(miopenExecuteFusionPlan(handle.h, plan.plan, d.x, dx.p, d.y, dy.p, args.a));
  REQUIRE(hipStreamSynchronize(stream) == hipSuccess);
  check_close(dy.download(), reference(x, w, bias, miopenActivationRELU, 0));
  REQUIRE_OK(miopenSetStream(handle.h, nullptr));
  REQUIRE(hipStreamDestroy(stream) == hipSuccess);
}

TEST_CASE("api: Execute's checks on a compiled plan") {
  Quiet quiet;
  Handle handle;
  Descriptors d;
  CbaPlan plan(handle.h, d, miopenActivationRELU);
  Buffer dx(static_cast<std::size_t>(N * C * H * W)), dw(static_cast<std::size_t>(K * C * R * S));
  Buffer db(static_cast<std::size_t>(K)), dy(static_cast<std::size_t>(N * K * H * W + 64));
  Args args;
  REQUIRE_OK(miopenSetOpArgsConvForward(args.a, plan.conv_op, nullptr, nullptr, dw.p));
  REQUIRE_OK(miopenSetOpArgsActivForward(args.a, plan.act_op, nullptr, nullptr, 0, 0, 0));
  const auto execute = [&](miopenTensorDescriptor_t in, miopenTensorDescriptor_t out, miopenOperatorArgs_t a) {
    return miopenExecuteFusionPlan(handle.h, plan.plan, in, dx.p, out, dy.p, a);
  };
  CHECK(execute(d.x, d.y, args.a) == miopenStatusBadParm);  // bias slot unset
  CHECK(std::string(hipfuseGetLastErrorMessage()).find("op 1 (BiasForward) has no arguments") != std::string::npos);
  REQUIRE_OK(miopenSetOpArgsBiasForward(args.a, plan.bias_op, nullptr, nullptr, nullptr));
  CHECK(execute(d.x, d.y, args.a) == miopenStatusBadParm);  // null bias pointer
  CHECK(std::string(hipfuseGetLastErrorMessage()).find("bias is null") != std::string::npos);
  REQUIRE_OK(miopenSetOpArgsBiasForward(args.a, plan.bias_op, nullptr, nullptr, db.p));
  CHECK(execute(d.x, d.y_wrong, args.a) == miopenStatusBadParm);
  CHECK(std::string(hipfuseGetLastErrorMessage()).find("outputDesc") != std::string::npos);
  CHECK(execute(d.y, d.y, args.a) == miopenStatusBadParm);
  CHECK(std::string(hipfuseGetLastErrorMessage()).find("inputDesc") != std::string::npos);
  REQUIRE_OK(execute(d.x, d.y, args.a));

  // Arguments set for a plan with other kinds at those positions.
  miopenFusionPlanDescriptor_t other{};
  miopenFusionOpDescriptor_t op{};
  REQUIRE_OK(miopenCreateFusionPlan(&other, miopenVerticalFusion, d.x));
  REQUIRE_OK(miopenCreateOpActivationForward(other, &op, miopenActivationRELU));
  Args foreign;
  REQUIRE_OK(miopenSetOpArgsActivForward(foreign.a, op, nullptr, nullptr, 0, 0, 0));
  CHECK(execute(d.x, d.y, foreign.a) == miopenStatusBadParm);
  CHECK(std::string(hipfuseGetLastErrorMessage()).find("op 0 is a ConvForward op") != std::string::npos);
  REQUIRE_OK(miopenDestroyFusionPlan(other));

  // Adding an op makes the plan uncompiled until compiled again.
  REQUIRE_OK(miopenCreateOpActivationForward(plan.plan, &op, miopenActivationRELU));
  REQUIRE_OK(miopenSetOpArgsActivForward(args.a, op, nullptr, nullptr, 0, 0, 0));
  CHECK(execute(d.x, d.y, args.a) == miopenStatusBadParm);
  CHECK(std::string(hipfuseGetLastErrorMessage()).find("not compiled") != std::string::npos);
  REQUIRE_OK(miopenCompileFusionPlan(handle.h, plan.plan));
  REQUIRE_OK(execute(d.x, d.y, args.a));
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
}

TEST_CASE("api: the residual-add extension in a plan") {
  Handle handle;
  Descriptors d;
  miopenFusionPlanDescriptor_t plan{};
  miopenFusionOpDescriptor_t conv_op{}, z_op{}, bias_op{}, act_op{};
  REQUIRE_OK(miopenCreateFusionPlan(&plan, miopenVerticalFusion, d.x));
  REQUIRE_OK(miopenCreateOpConvForward(plan, &conv_op, d.conv, d.w));
  REQUIRE_OK(hipfuseCreateOpResidualAdd(plan, &z_op, d.y));
  REQUIRE_OK(miopenCreateOpBiasForward(plan, &bias_op, d.b));
  REQUIRE_OK(miopenCreateOpActivationForward(plan, &act_op, miopenActivationRELU));
  REQUIRE_OK(miopenCompileFusionPlan(handle.h, plan));
  const auto x = small_ints(N * C * H * W, 12), w = small_ints(K * C * R * S, 13), bias = small_ints(K, 14);
  const auto z = small_ints(N * K * H * W, 15);
  Buffer dx(x), dw(w), db(bias), dz(z), dy(static_cast<std::size_t>(N * K * H * W));
  Args args;
  REQUIRE_OK(miopenSetOpArgsConvForward(args.a, conv_op, nullptr, nullptr, dw.p));
  REQUIRE_OK(hipfuseSetOpArgsResidualAdd(args.a, z_op, 0.5, dz.p));
  REQUIRE_OK(miopenSetOpArgsBiasForward(args.a, bias_op, nullptr, nullptr, db.p));
  REQUIRE_OK(miopenSetOpArgsActivForward(args.a, act_op, nullptr, nullptr, 0, 0, 0));
  REQUIRE_OK(miopenExecuteFusionPlan(handle.h, plan, d.x, dx.p, d.y, dy.p, args.a));
  check_close(dy.download(), reference(x, w, bias, miopenActivationRELU, 0, 1.0, &z, 0.5));
  REQUIRE_OK(miopenDestroyFusionPlan(plan));
}

TEST_CASE("api: miopenConvolutionBiasActivationForward honours alpha1, alpha2 and every activation") {
  Handle handle;
  Descriptors d;
  const auto x = small_ints(N * C * H * W, 16), w = small_ints(K * C * R * S, 17), bias = small_ints(K, 18);
  const auto z = small_ints(N * K * H * W, 19);
  Buffer dx(x), dw(w), db(bias), dz(z), dy(static_cast<std::size_t>(N * K * H * W));
  miopenActivationDescriptor_t act{};
  REQUIRE_OK(miopenCreateActivationDescriptor(&act));
  const float alpha1 = 2.0f, alpha2 = 0.5f;
  for (auto [mode, act_alpha] : {std::pair{miopenActivationRELU, 0.0}, std::pair{miopenActivationLEAKYRELU, 0.125}}) {
    CAPTURE(mode);
    REQUIRE_OK(miopenSetActivationDescriptor(act, mode, act_alpha, 0, 0));
    for (int repeat = 0; repeat < 2; ++repeat) {
      REQUIRE_OK(miopenConvolutionBiasActivationForward(handle.h, &alpha1, d.x, dx.p, d.w, dw.p, d.conv,
                                                        miopenConvolutionFwdAlgoDirect, nullptr, 0, &alpha2, d.y,
                                                        dz.p, d.b, db.p, act, d.y, dy.p));
      check_close(dy.download(), reference(x, w, bias, mode, act_alpha, 2.0, &z, 0.5));
    }
  }
  // One compiled plan per distinct problem, reused on repeats.
  CHECK(static_cast<hipfuse::api::HandleObject*>(handle.h)->one_shot_plans.size() == 2);
  // Null alphas mean 1.
  REQUIRE_OK(miopenSetActivationDescriptor(act, miopenActivationRELU, 0, 0, 0));
  REQUIRE_OK(miopenConvolutionBiasActivationForward(handle.h, nullptr, d.x, dx.p, d.w, dw.p, d.conv,
                                                    miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, d.y, dz.p,
                                                    d.b, db.p, act, d.y, dy.p));
  check_close(dy.download(), reference(x, w, bias, miopenActivationRELU, 0, 1.0, &z, 1.0));
  REQUIRE_OK(miopenDestroyActivationDescriptor(act));
}
