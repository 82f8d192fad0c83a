// A program written against MIOpen's fusion API, following MIOpen's published
// convolution + bias + ReLU fusion example: create a handle and descriptors, build a
// vertical fusion plan (conv -> bias -> activation), compile it, set the operator
// arguments, execute, clean up. It uses only <miopen/miopen.h> and HIP, and compiles
// unchanged against hipfuse (and MIOpen).
//
// Exit status: 0 when the result matches a host loop, or when there is no GPU
// (miopenCreate returns miopenStatusNotInitialized); 1 otherwise.
#include <miopen/miopen.h>

#include <hip/hip_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK_MIOPEN(call)                                                               \
  do {                                                                                   \
    miopenStatus_t status_ = (call);                                                     \
    if (status_ != miopenStatusSuccess) {                                                \
      std::fprintf(stderr, "%s failed: %s\n", #call, miopenGetErrorString(status_));     \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

#define CHECK_HIP(call)                                                                  \
  do {                                                                                   \
    hipError_t err_ = (call);                                                            \
    if (err_ != hipSuccess) {                                                            \
      std::fprintf(stderr, "%s failed: %s\n", #call, hipGetErrorString(err_));           \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

int main() {
  miopenHandle_t handle;
  miopenStatus_t status = miopenCreate(&handle);
  if (status == miopenStatusNotInitialized) {
    std::printf("no GPU: miopenCreate returned %s; nothing to run\n", miopenGetErrorString(status));
    return 0;
  }
  CHECK_MIOPEN(status);

  // x: N x C x H x W, weights K x C x 3 x 3, padding 1: y is N x K x H x W.
  const int n = 2, c = 3, h = 16, w = 16, k = 8, r = 3, s = 3;
  miopenTensorDescriptor_t input_desc, weights_desc, bias_desc, output_desc;
  CHECK_MIOPEN(miopenCreateTensorDescriptor(&input_desc));
  CHECK_MIOPEN(miopenCreateTensorDescriptor(&weights_desc));
  CHECK_MIOPEN(miopenCreateTensorDescriptor(&bias_desc));
  CHECK_MIOPEN(miopenCreateTensorDescriptor(&output_desc));
  CHECK_MIOPEN(miopenSet4dTensorDescriptor(input_desc, miopenFloat, n, c, h, w));
  CHECK_MIOPEN(miopenSet4dTensorDescriptor(weights_desc, miopenFloat, k, c, r, s));
  CHECK_MIOPEN(miopenSet4dTensorDescriptor(bias_desc, miopenFloat, 1, k, 1, 1));

  miopenConvolutionDescriptor_t conv_desc;
  CHECK_MIOPEN(miopenCreateConvolutionDescriptor(&conv_desc));
  CHECK_MIOPEN(miopenInitConvolutionDescriptor(conv_desc, miopenConvolution, 1, 1, 1, 1, 1, 1));
  int on, oc, oh, ow;
  CHECK_MIOPEN(miopenGetConvolutionForwardOutputDim(conv_desc, input_desc, weights_desc, &on, &oc, &oh, &ow));
  CHECK_MIOPEN(miopenSet4dTensorDescriptor(output_desc, miopenFloat, on, oc, oh, ow));

  // Small integers: every product and sum is exact in fp32, so the check can be exact.
  std::vector<float> x(static_cast<size_t>(n * c * h * w)), wt(static_cast<size_t>(k * c * r * s));
  std::vector<float> bias(static_cast<size_t>(k)), y(static_cast<size_t>(on * oc * oh * ow));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5);
  for (size_t i = 0; i < wt.size(); ++i) wt[i] = static_cast<float>(static_cast<int>(i * 5 % 7) - 3);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(static_cast<int>(i % 5) - 2);

  void *d_x, *d_w, *d_b, *d_y;
  CHECK_HIP(hipMalloc(&d_x, x.size() * sizeof(float)));
  CHECK_HIP(hipMalloc(&d_w, wt.size() * sizeof(float)));
  CHECK_HIP(hipMalloc(&d_b, bias.size() * sizeof(float)));
  CHECK_HIP(hipMalloc(&d_y, y.size() * sizeof(float)));
  CHECK_HIP(hipMemcpy(d_x, x.data(), x.size() * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(d_w, wt.data(), wt.size() * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(d_b, bias.data(), bias.size() * sizeof(float), hipMemcpyHostToDevice));

  // The fusion plan, as in MIOpen's example.
  miopenFusionPlanDescriptor_t fusePlanDesc;
  miopenOperatorArgs_t fusionArgs;
  miopenFusionOpDescriptor_t convoOp, biasOp, activOp;
  CHECK_MIOPEN(miopenCreateFusionPlan(&fusePlanDesc, miopenVerticalFusion, input_desc));
  CHECK_MIOPEN(miopenCreateOperatorArgs(&fusionArgs));
  CHECK_MIOPEN(miopenCreateOpConvForward(fusePlanDesc, &convoOp, conv_desc, weights_desc));
  CHECK_MIOPEN(miopenCreateOpBiasForward(fusePlanDesc, &biasOp, bias_desc));
  CHECK_MIOPEN(miopenCreateOpActivationForward(fusePlanDesc, &activOp, miopenActivationRELU));
  status = miopenCompileFusionPlan(handle, fusePlanDesc);
  if (status != miopenStatusSuccess) {
    std::fprintf(stderr, "fusion plan not supported: %s\n", miopenGetErrorString(status));
    return 1;
  }
  float alpha = static_cast<float>(1), beta = static_cast<float>(0);
  float activ_alpha = static_cast<float>(0), activ_beta = static_cast<float>(0), activ_gamma = static_cast<float>(0);
  CHECK_MIOPEN(miopenSetOpArgsConvForward(fusionArgs, convoOp, &alpha, &beta, d_w));
  CHECK_MIOPEN(miopenSetOpArgsActivForward(fusionArgs, activOp, &alpha, &beta, activ_alpha, activ_beta, activ_gamma));
  CHECK_MIOPEN(miopenSetOpArgsBiasForward(fusionArgs, biasOp, &alpha, &beta, d_b));
  CHECK_MIOPEN(miopenExecuteFusionPlan(handle, fusePlanDesc, input_desc, d_x, output_desc, d_y, fusionArgs));
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(y.data(), d_y, y.size() * sizeof(float), hipMemcpyDeviceToHost));

  // The same computation as a plain host loop.
  int mismatches = 0;
  for (int ni = 0; ni < on; ++ni)
    for (int ki = 0; ki < oc; ++ki)
      for (int p = 0; p < oh; ++p)
        for (int q = 0; q < ow; ++q) {
          double acc = bias[static_cast<size_t>(ki)];
          for (int ci = 0; ci < c; ++ci)
            for (int ri = 0; ri < r; ++ri)
              for (int si = 0; si < s; ++si) {
                const int ih = p - 1 + ri, iw = q - 1 + si;
                if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                acc += static_cast<double>(x[static_cast<size_t>(((ni * c + ci) * h + ih) * w + iw)]) *
                       wt[static_cast<size_t>(((ki * c + ci) * r + ri) * s + si)];
              }
          const double expected = acc > 0 ? acc : 0;
          const float got = y[static_cast<size_t>(((ni * oc + ki) * oh + p) * ow + q)];
          if (std::fabs(got - expected) > 1e-3 && mismatches++ < 5) {
            std::fprintf(stderr, "y[%d,%d,%d,%d] = %g, expected %g\n", ni, ki, p, q, static_cast<double>(got), expected);
          }
        }

  CHECK_MIOPEN(miopenDestroyFusionPlan(fusePlanDesc));
  CHECK_MIOPEN(miopenDestroyOperatorArgs(fusionArgs));
  CHECK_MIOPEN(miopenDestroyConvolutionDescriptor(conv_desc));
  CHECK_MIOPEN(miopenDestroyTensorDescriptor(input_desc));
  CHECK_MIOPEN(miopenDestroyTensorDescriptor(weights_desc));
  CHECK_MIOPEN(miopenDestroyTensorDescriptor(bias_desc));
  CHECK_MIOPEN(miopenDestroyTensorDescriptor(output_desc));
  CHECK_HIP(hipFree(d_x));
  CHECK_HIP(hipFree(d_w));
  CHECK_HIP(hipFree(d_b));
  CHECK_HIP(hipFree(d_y));
  CHECK_MIOPEN(miopenDestroy(handle));

  if (mismatches != 0) {
    std::printf("FAILED: %d of %zu outputs differ from the host loop\n", mismatches, y.size());
    return 1;
  }
  std::printf("PASSED: conv+bias+ReLU fusion matches the host loop (%zu outputs)\n", y.size());
  return 0;
}
