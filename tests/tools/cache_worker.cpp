// hipfuse_cache_worker: one process of the multi-process kernel-cache tests
// (tests/unit/test_reliability_concurrency.cpp starts 8 of them at once on one cache
// directory). Builds a fixed set of fusion plans through the public C API and compiles each
// offline (hipfuseCompileFusionPlanForArch) into the disk cache named by
// MIOPEN_CUSTOM_CACHE_DIR, then prints one line of counts:
//
//   requests=R compiles=C disk_hits=D memory_hits=M corrupt=X failures=F
//
// R is the number of kernels the compiles asked for (sum of kernelLaunches), the rest come
// from hipfuseGetKernelCacheStats. Exit status 0 when every call succeeded.
//
//   hipfuse_cache_worker [--plans LIST] [--arch ARCH] [--repeat N] [--go FILE]
//     --plans  comma-separated recipe numbers (default 0,1; see recipes below)
//     --arch   target architecture (default sm_90)
//     --repeat compile each plan N times (default 1); later rounds are disk hits
//     --go     wait until FILE exists before compiling, so that all workers start together
#include <hipfuse/hipfuse.h>
#include <miopen/miopen.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace {

int g_failures = 0;

void check(miopenStatus_t s, const char* what) {
  if (s == miopenStatusSuccess) return;
  ++g_failures;
  std::fprintf(stderr, "hipfuse_cache_worker: %s: %s: %s\n", what, miopenGetErrorString(s), hipfuseGetLastErrorMessage());
}

miopenTensorDescriptor_t tensor(miopenDataType_t type, miopenTensorLayout_t layout, std::vector<int> lens) {
  miopenTensorDescriptor_t t = nullptr;
  check(miopenCreateTensorDescriptor(&t), "miopenCreateTensorDescriptor");
  check(miopenSetNdTensorDescriptorWithLayout(t, type, layout, lens.data(), static_cast<int>(lens.size())),
        "miopenSetNdTensorDescriptorWithLayout");
  return t;
}

// One plan per recipe; every descriptor is destroyed before returning (plans keep copies).
miopenFusionPlanDescriptor_t make_plan(int recipe) {
  miopenFusionPlanDescriptor_t plan = nullptr;
  miopenFusionOpDescriptor_t op = nullptr;
  std::vector<miopenTensorDescriptor_t> tensors;
  auto t = [&](miopenDataType_t type, miopenTensorLayout_t layout, std::vector<int> lens) {
    tensors.push_back(tensor(type, layout, std::move(lens)));
    return tensors.back();
  };
  switch (recipe) {
    case 0: {  // fp32 NCHW bias + relu (pointwise family)
      check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, t(miopenFloat, miopenTensorNCHW, {2, 8, 16, 16})), "plan");
      check(miopenCreateOpBiasForward(plan, &op, t(miopenFloat, miopenTensorNCHW, {1, 8, 1, 1})), "bias");
      check(miopenCreateOpActivationForward(plan, &op, miopenActivationRELU), "relu");
      break;
    }
    case 1: {  // fp16 NHWC BN inference + leaky relu (pointwise family)
      auto x = t(miopenHalf, miopenTensorNHWC, {2, 8, 16, 16});
      miopenTensorDescriptor_t bn = tensor(miopenFloat, miopenTensorNCHW, {1, 1, 1, 1});
      tensors.push_back(bn);
      check(miopenDeriveBNTensorDescriptor(bn, x, miopenBNSpatial), "derive");
      check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x), "plan");
      check(miopenCreateOpBatchNormInference(plan, &op, miopenBNSpatial, bn), "bn inference");
      check(miopenCreateOpActivationForward(plan, &op, miopenActivationLEAKYRELU), "leaky relu");
      break;
    }
    case 2: {  // fp32 NCHW conv 3x3 + bias + relu (convolution family)
      miopenConvolutionDescriptor_t conv = nullptr;
      check(miopenCreateConvolutionDescriptor(&conv), "conv desc");
      check(miopenInitConvolutionDescriptor(conv, miopenConvolution, 1, 1, 1, 1, 1, 1), "conv init");
      check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, t(miopenFloat, miopenTensorNCHW, {2, 4, 8, 8})), "plan");
      check(miopenCreateOpConvForward(plan, &op, conv, t(miopenFloat, miopenTensorNCHW, {8, 4, 3, 3})), "conv");
      check(miopenCreateOpBiasForward(plan, &op, t(miopenFloat, miopenTensorNCHW, {1, 8, 1, 1})), "bias");
      check(miopenCreateOpActivationForward(plan, &op, miopenActivationRELU), "relu");
      check(miopenDestroyConvolutionDescriptor(conv), "conv destroy");
      break;
    }
    case 3: {  // fp32 NCHW BN forward training + relu (BN training family)
      check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, t(miopenFloat, miopenTensorNCHW, {4, 8, 8, 8})), "plan");
      check(miopenCreateOpBatchNormForward(plan, &op, miopenBNSpatial, true), "bn forward");
      check(miopenCreateOpActivationForward(plan, &op, miopenActivationRELU), "relu");
      break;
    }
    case 4: {  // fp32 NCHW BN backward + relu backward (BN backward family)
      check(miopenCreateFusionPlan(&plan, miopenVerticalFusion, t(miopenFloat, miopenTensorNCHW, {4, 8, 8, 8})), "plan");
      check(miopenCreateOpBatchNormBackward(plan, &op, miopenBNSpatial), "bn backward");
      check(miopenCreateOpActivationBackward(plan, &op, miopenActivationRELU), "relu backward");
      break;
    }
    default:
      std::fprintf(stderr, "hipfuse_cache_worker: no recipe %d\n", recipe);
      ++g_failures;
  }
  for (auto d : tensors) check(miopenDestroyTensorDescriptor(d), "tensor destroy");
  return plan;
}

std::vector<int> parse_list(const char* text) {
  std::vector<int> out;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!item.empty()) out.push_back(std::atoi(item.c_str()));
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return out;
}

bool wait_for(const char* path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  struct stat st {};
  while (::stat(path, &st) != 0) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> recipes{0, 1};
  std::string arch = "sm_90";
  int repeat = 1;
  const char* go = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--plans") recipes = parse_list(argv[i + 1]);
    else if (flag == "--arch") arch = argv[i + 1];
    else if (flag == "--repeat") repeat = std::atoi(argv[i + 1]);
    else if (flag == "--go") go = argv[i + 1];
    else {
      std::fprintf(stderr, "hipfuse_cache_worker: unknown flag %s\n", argv[i]);
      return 2;
    }
  }

  std::vector<miopenFusionPlanDescriptor_t> plans;
  for (int r : recipes) plans.push_back(make_plan(r));
  check(hipfuseResetKernelCacheStats(), "reset stats");
  if (go != nullptr && !wait_for(go)) {
    std::fprintf(stderr, "hipfuse_cache_worker: %s never appeared\n", go);
    return 2;
  }

  long requests = 0;
  for (int round = 0; round < repeat; ++round) {
    for (auto plan : plans) {
      check(hipfuseCompileFusionPlanForArch(plan, arch.c_str()), "hipfuseCompileFusionPlanForArch");
      hipfuseFusionPlanInfo info{};
      check(hipfuseGetFusionPlanInfo(plan, &info), "hipfuseGetFusionPlanInfo");
      requests += info.kernelLaunches;
    }
  }
  hipfuseKernelCacheStats stats{};
  check(hipfuseGetKernelCacheStats(&stats), "hipfuseGetKernelCacheStats");
  for (auto plan : plans) check(miopenDestroyFusionPlan(plan), "miopenDestroyFusionPlan");
  std::printf("requests=%ld compiles=%llu disk_hits=%llu memory_hits=%llu corrupt=%llu failures=%d\n", requests,
              static_cast<unsigned long long>(stats.compiles), static_cast<unsigned long long>(stats.diskHits),
              static_cast<unsigned long long>(stats.memoryHits), static_cast<unsigned long long>(stats.corruptEntries),
              g_failures);
  return g_failures == 0 ? 0 : 1;
}
