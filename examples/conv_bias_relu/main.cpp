// conv_bias_relu: y = ReLU(conv(x, w) + bias) as one fused kernel, through MIOpen's fusion
// API as hipfuse implements it, checked against a plain host loop.
//
// The steps every fusion program takes:
//   1. describe the tensors and the convolution (descriptors hold shapes, not data);
//   2. build a plan: the input descriptor, then the ops in the order they apply;
//   3. compile the plan once (hipfuse picks and builds a kernel for it);
//   4. give each op its arguments (device pointers, activation parameters) and execute;
//      arguments can change between executions without compiling again.
//
// Exit status: 0 PASS; 1 FAIL (the result differs from the host loop); 2 a call failed
// (its reason is printed); 3 no GPU (one line saying why; nothing ran).
#include <hipfuse/hipfuse.h>  // hipfuse's extensions; includes <miopen/miopen.h>

#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int kExitPass = 0, kExitFail = 1, kExitError = 2, kExitNoGpu = 3;

// Stops with the call's status and hipfuse's reason for it (every failing call leaves one).
void check(miopenStatus_t status, const char* call) {
  if (status == miopenStatusSuccess) return;
  std::fprintf(stderr, "conv_bias_relu: %s: %s: %s\n", call, miopenGetErrorString(status),
               hipfuseGetLastErrorMessage());
  std::exit(kExitError);
}

void check_hip(hipError_t error, const char* call) {
  if (error == hipSuccess) return;
  std::fprintf(stderr, "conv_bias_relu: %s: %s\n", call, hipGetErrorString(error));
  std::exit(kExitError);
}

// Values in +-[0.1, 1): random, and never zero, so that a kernel that skips a term, or
// writes nothing, cannot pass by accident.
std::vector<float> random_values(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> magnitude(0.1f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> v(count);
  for (float& x : v) x = negative(rng) ? -magnitude(rng) : magnitude(rng);
  return v;
}

void* to_device(const std::vector<float>& host) {
  void* device = nullptr;
  check_hip(hipMalloc(&device, host.size() * sizeof(float)), "hipMalloc");
  check_hip(hipMemcpy(device, host.data(), host.size() * sizeof(float), hipMemcpyHostToDevice), "hipMemcpy");
  return device;
}

}  // namespace

int main() {
  // Without a GPU there is nothing to run: say so in one line (hipfuse's extension tells
  // why, e.g. no driver) instead of failing later in miopenCreate.
  int gpus = 0;
  const char* why = nullptr;
  check(hipfuseGetDeviceAvailable(&gpus, &why), "hipfuseGetDeviceAvailable");
  if (gpus == 0) {
    std::printf("conv_bias_relu: no GPU: %s\n", why);
    return kExitNoGpu;
  }

  miopenHandle_t handle = nullptr;
  check(miopenCreate(&handle), "miopenCreate");

  // 1. x: N x C x H x W (fp32, NCHW); w: K x C x 3 x 3; padding 1, stride 1: y is N x K x H x W.
  const int n = 2, c = 16, h = 32, w = 32, k = 32, r = 3, s = 3, pad = 1;
  miopenTensorDescriptor_t x_desc, w_desc, b_desc, y_desc;
  check(miopenCreateTensorDescriptor(&x_desc), "miopenCreateTensorDescriptor");
  check(miopenCreateTensorDescriptor(&w_desc), "miopenCreateTensorDescriptor");
  check(miopenCreateTensorDescriptor(&b_desc), "miopenCreateTensorDescriptor");
  check(miopenCreateTensorDescriptor(&y_desc), "miopenCreateTensorDescriptor");
  check(miopenSet4dTensorDescriptor(x_desc, miopenFloat, n, c, h, w), "miopenSet4dTensorDescriptor");
  check(miopenSet4dTensorDescriptor(w_desc, miopenFloat, k, c, r, s), "miopenSet4dTensorDescriptor");
  check(miopenSet4dTensorDescriptor(b_desc, miopenFloat, 1, k, 1, 1), "miopenSet4dTensorDescriptor");

  miopenConvolutionDescriptor_t conv_desc;
  check(miopenCreateConvolutionDescriptor(&conv_desc), "miopenCreateConvolutionDescriptor");
  check(miopenInitConvolutionDescriptor(conv_desc, miopenConvolution, pad, pad, 1, 1, 1, 1),
        "miopenInitConvolutionDescriptor");
  int yn, yc, yh, yw;
  check(miopenGetConvolutionForwardOutputDim(conv_desc, x_desc, w_desc, &yn, &yc, &yh, &yw),
        "miopenGetConvolutionForwardOutputDim");
  check(miopenSet4dTensorDescriptor(y_desc, miopenFloat, yn, yc, yh, yw), "miopenSet4dTensorDescriptor");

  // 2. The plan: conv -> bias -> ReLU, applied in this order to one tensor.
  miopenFusionPlanDescriptor_t plan;
  miopenFusionOpDescriptor_t conv_op, bias_op, relu_op;
  check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x_desc), "miopenCreateFusionPlan");
  check(miopenCreateOpConvForward(plan, &conv_op, conv_desc, w_desc), "miopenCreateOpConvForward");
  check(miopenCreateOpBiasForward(plan, &bias_op, b_desc), "miopenCreateOpBiasForward");
  check(miopenCreateOpActivationForward(plan, &relu_op, miopenActivationRELU), "miopenCreateOpActivationForward");

  // 3. Compile once. UnsupportedOp would come with every kernel family's reason.
  check(miopenCompileFusionPlan(handle, plan), "miopenCompileFusionPlan");

  // 4. Data, arguments, execution. alpha/beta are part of MIOpen's signatures (and ignored).
  std::mt19937 rng(2024);
  const std::vector<float> x = random_values(static_cast<std::size_t>(n) * c * h * w, rng);
  const std::vector<float> wt = random_values(static_cast<std::size_t>(k) * c * r * s, rng);
  const std::vector<float> bias = random_values(static_cast<std::size_t>(k), rng);
  std::vector<float> y(static_cast<std::size_t>(yn) * yc * yh * yw);
  void* d_x = to_device(x);
  void* d_w = to_device(wt);
  void* d_b = to_device(bias);
  void* d_y = nullptr;
  check_hip(hipMalloc(&d_y, y.size() * sizeof(float)), "hipMalloc");

  miopenOperatorArgs_t args;
  check(miopenCreateOperatorArgs(&args), "miopenCreateOperatorArgs");
  const float alpha = 1.0f, beta = 0.0f;
  check(miopenSetOpArgsConvForward(args, conv_op, &alpha, &beta, d_w), "miopenSetOpArgsConvForward");
  check(miopenSetOpArgsBiasForward(args, bias_op, &alpha, &beta, d_b), "miopenSetOpArgsBiasForward");
  check(miopenSetOpArgsActivForward(args, relu_op, &alpha, &beta, 0.0, 0.0, 0.0), "miopenSetOpArgsActivForward");
  check(miopenExecuteFusionPlan(handle, plan, x_desc, d_x, y_desc, d_y, args), "miopenExecuteFusionPlan");
  check_hip(hipMemcpy(y.data(), d_y, y.size() * sizeof(float), hipMemcpyDeviceToHost), "hipMemcpy");

  // The same computation as a plain host loop, in double.
  double max_error = 0;
  for (int ni = 0; ni < yn; ++ni)
    for (int ki = 0; ki < yc; ++ki)
      for (int p = 0; p < yh; ++p)
        for (int q = 0; q < yw; ++q) {
          double sum = bias[static_cast<std::size_t>(ki)];
          for (int ci = 0; ci < c; ++ci)
            for (int ri = 0; ri < r; ++ri)
              for (int si = 0; si < s; ++si) {
                const int ih = p - pad + ri, iw = q - pad + si;
                if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;  // zero padding
                sum += static_cast<double>(x[((static_cast<std::size_t>(ni) * c + ci) * h + ih) * w + iw]) *
                       wt[((static_cast<std::size_t>(ki) * c + ci) * r + ri) * s + si];
              }
          const double expected = std::max(sum, 0.0);
          const float got = y[((static_cast<std::size_t>(ni) * yc + ki) * yh + p) * yw + q];
          const double error = std::fabs(static_cast<double>(got) - expected);
          if (std::isnan(error) || error > max_error) max_error = error;  // a NaN output stays a failure
        }

  check(miopenDestroyOperatorArgs(args), "miopenDestroyOperatorArgs");
  check(miopenDestroyFusionPlan(plan), "miopenDestroyFusionPlan");
  check(miopenDestroyConvolutionDescriptor(conv_desc), "miopenDestroyConvolutionDescriptor");
  for (miopenTensorDescriptor_t d : {x_desc, w_desc, b_desc, y_desc}) {
    check(miopenDestroyTensorDescriptor(d), "miopenDestroyTensorDescriptor");
  }
  for (void* d : {d_x, d_w, d_b, d_y}) check_hip(hipFree(d), "hipFree");
  check(miopenDestroy(handle), "miopenDestroy");

  // fp32 sums of c*r*s = 144 products of magnitude < 1 stay within 1e-4 of the exact value;
  // 1e-3 leaves room and still catches any wrong term (each is at least 0.01).
  const double tolerance = 1e-3;
  const bool pass = max_error <= tolerance;
  std::printf("conv_bias_relu: %s: %zu outputs, max abs error %.3g (tolerance %.0e)\n", pass ? "PASS" : "FAIL",
              y.size(), max_error, tolerance);
  return pass ? kExitPass : kExitFail;
}
