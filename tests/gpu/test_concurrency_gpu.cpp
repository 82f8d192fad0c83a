// 8 threads, each with its own handle and stream, compile and execute fusion plans at the
// same time through the public C API: pairs of threads build the same plan (their kernels
// meet in the process-wide kernel cache), others different plans of the same family, and
// half the handles time their kernels. Every output is checked against the CPU reference
// (hipfuse_reference), with guard bytes after each buffer.
//
// What is shared between the threads is only what RELIABILITY.md says may be: the library's
// caches. Plans, op args and handles belong to one thread each.
#include "gpu/test_fused_support.h"

#include <hipfuse/hipfuse.h>
#include <miopen/miopen.h>

#include <atomic>
#include <mutex>
#include <thread>

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

enum class Recipe { cba_f32_nchw, bn_inference_f16_nhwc, bias_relu_bf16_nchw, bn_training_f32_nchw };

const char* name_of(Recipe r) {
  static const char* const names[] = {"conv+bias+relu fp32 nchw", "bn inference+leakyrelu fp16 nhwc",
                                      "bias+relu bf16 nchw", "bn training+relu fp32 nchw"};
  return names[static_cast<int>(r)];
}

miopenTensorDescriptor_t api_tensor(const TensorDesc& t) {
  miopenTensorDescriptor_t d = nullptr;
  REQUIRE(miopenCreateTensorDescriptor(&d) == miopenStatusSuccess);
  std::vector<int> lens, strides;
  for (auto v : t.lengths) lens.push_back(static_cast<int>(v));
  for (auto v : t.strides) strides.push_back(static_cast<int>(v));
  REQUIRE(miopenSetTensorDescriptor(d, static_cast<miopenDataType_t>(t.type), t.dims(), lens.data(), strides.data()) ==
          miopenStatusSuccess);
  return d;
}

// One plan built through the C API, with its device data and the expected output. Built in
// the main thread (doctest's REQUIRE); run() is what the threads do concurrently.
class ApiCase {
 public:
  ApiCase(Recipe recipe, int variant, std::uint64_t seed) : recipe_(recipe), seed_(seed) {
    const std::int64_t c = variant == 0 ? 8 : 16;
    switch (recipe) {
      case Recipe::cba_f32_nchw: {
        const TensorDesc x = packed(DataType::float32, {2, c, 12, 12}, Lay::nchw);
        const TensorDesc w = packed(DataType::float32, {8, c, 3, 3}, Lay::nchw);
        const TensorDesc b = packed(DataType::float32, {1, 8, 1, 1}, Lay::nchw);
        input(x);
        output(packed(DataType::float32, {2, 8, 12, 12}, Lay::nchw));
        miopenConvolutionDescriptor_t conv = nullptr;
        REQUIRE(miopenCreateConvolutionDescriptor(&conv) == miopenStatusSuccess);
        REQUIRE(miopenInitConvolutionDescriptor(conv, miopenConvolution, 1, 1, 1, 1, 1, 1) == miopenStatusSuccess);
        DeviceTensor* wt = data(w, random_tensor(w.lengths, 0.0, 0.3, next(), w.type));
        DeviceTensor* bt = data(b, random_tensor(b.lengths, 0.0, 0.5, next(), b.type));
        miopenFusionOpDescriptor_t op_conv = nullptr, op_bias = nullptr, op_relu = nullptr;
        REQUIRE(miopenCreateOpConvForward(plan_, &op_conv, conv, keep(api_tensor(w))) == miopenStatusSuccess);
        REQUIRE(miopenCreateOpBiasForward(plan_, &op_bias, keep(api_tensor(b))) == miopenStatusSuccess);
        REQUIRE(miopenCreateOpActivationForward(plan_, &op_relu, miopenActivationRELU) == miopenStatusSuccess);
        REQUIRE(miopenDestroyConvolutionDescriptor(conv) == miopenStatusSuccess);
        const float one = 1, zero = 0;
        REQUIRE(miopenSetOpArgsConvForward(args_, op_conv, &one, &zero, wt->data()) == miopenStatusSuccess);
        REQUIRE(miopenSetOpArgsBiasForward(args_, op_bias, &one, &zero, bt->data()) == miopenStatusSuccess);
        REQUIRE(miopenSetOpArgsActivForward(args_, op_relu, &one, &zero, 0, 0, 0) == miopenStatusSuccess);
        ref::ConvGeometry g;
        g.pad = {1, 1};
        ref_ops_.push_back(ref::ConvOp{wt->host, g, 1.0});
        ref_ops_.push_back(ref::BiasOp{bt->host});
        ref_ops_.push_back(ref::ActivationForwardOp{ref::ActivationMode::relu, 0, 0, 0});
        reduction_ = c * 9;
        break;
      }
      case Recipe::bn_inference_f16_nhwc: {
        const TensorDesc x = packed(DataType::half, {4, c, 8, 8}, Lay::nhwc);
        input(x);
        output(x);
        bn_inference(c);
        break;
      }
      case Recipe::bias_relu_bf16_nchw: {
        const TensorDesc x = packed(DataType::bfloat16, {2, c, 16, 16}, Lay::nchw);
        const TensorDesc b = packed(DataType::bfloat16, {1, c, 1, 1}, Lay::nchw);
        input(x);
        output(x);
        DeviceTensor* bt = data(b, random_tensor(b.lengths, 0.0, 0.5, next(), b.type));
        miopenFusionOpDescriptor_t op_bias = nullptr, op_relu = nullptr;
        REQUIRE(miopenCreateOpBiasForward(plan_, &op_bias, keep(api_tensor(b))) == miopenStatusSuccess);
        REQUIRE(miopenCreateOpActivationForward(plan_, &op_relu, miopenActivationRELU) == miopenStatusSuccess);
        REQUIRE(miopenSetOpArgsBiasForward(args_, op_bias, nullptr, nullptr, bt->data()) == miopenStatusSuccess);
        REQUIRE(miopenSetOpArgsActivForward(args_, op_relu, nullptr, nullptr, 0, 0, 0) == miopenStatusSuccess);
        ref_ops_.push_back(ref::BiasOp{bt->host});
        ref_ops_.push_back(ref::ActivationForwardOp{ref::ActivationMode::relu, 0, 0, 0});
        break;
      }
      case Recipe::bn_training_f32_nchw: {
        // Large enough for several partial sums per channel: the solver allocates device
        // scratch for this plan, owned by its invoker (one per thread here).
        const TensorDesc x = packed(DataType::float32, {16, c, 32, 32}, Lay::nchw);
        input(x);
        output(x);
        const std::vector<std::int64_t> l{1, c, 1, 1};
        DeviceTensor* scale = param(l, random_tensor(l, 1.0, 0.25, next(), DataType::float32));
        DeviceTensor* bias = param(l, random_tensor(l, 0.0, 0.5, next(), DataType::float32));
        DeviceTensor* saved_mean = param(l, ref::make_tensor(l));
        DeviceTensor* saved_inv = param(l, ref::make_tensor(l));
        DeviceTensor* running_mean = param(l, ref::make_tensor(l));
        DeviceTensor* running_var = param(l, ref::make_tensor(l, 1.0));
        miopenFusionOpDescriptor_t op_bn = nullptr, op_relu = nullptr;
        REQUIRE(miopenCreateOpBatchNormForward(plan_, &op_bn, miopenBNSpatial, true) == miopenStatusSuccess);
        REQUIRE(miopenCreateOpActivationForward(plan_, &op_relu, miopenActivationRELU) == miopenStatusSuccess);
        REQUIRE(miopenSetOpArgsBatchNormForward(args_, op_bn, nullptr, nullptr, scale->data(), bias->data(),
                                                saved_mean->data(), saved_inv->data(), running_mean->data(),
                                                running_var->data(), 0.1, 1e-5) == miopenStatusSuccess);
        REQUIRE(miopenSetOpArgsActivForward(args_, op_relu, nullptr, nullptr, 0, 0, 0) == miopenStatusSuccess);
        // y does not depend on the running statistics, which every execution updates.
        ref_ops_.push_back(ref::BnForwardTrainingOp{ref::BnMode::spatial, scale->host, bias->host, 1e-5, 0.1, {}, {}, {}});
        ref_ops_.push_back(ref::ActivationForwardOp{ref::ActivationMode::relu, 0, 0, 0});
        reduction_ = 16 * 32 * 32;
        break;
      }
    }
    expected_ = ref::run_chain(in_->host, ref_ops_);
    ref::round_all(expected_, ref_type(out_->desc.type));
  }

  ~ApiCase() {
    (void)miopenDestroyFusionPlan(plan_);
    (void)miopenDestroyOperatorArgs(args_);
    for (auto d : descriptors_) (void)miopenDestroyTensorDescriptor(d);
  }
  ApiCase(const ApiCase&) = delete;
  ApiCase& operator=(const ApiCase&) = delete;

  // Compiles on `handle` and executes `executions` times on its stream; "" or what failed.
  std::string run(miopenHandle_t handle, hipStream_t stream, int executions) {
    miopenStatus_t s = miopenCompileFusionPlan(handle, plan_);
    if (s != miopenStatusSuccess) return std::string("compile: ") + miopenGetErrorString(s) + ": " + hipfuseGetLastErrorMessage();
    for (int i = 0; i < executions; ++i) {
      s = miopenExecuteFusionPlan(handle, plan_, in_desc_, in_->data(), out_desc_, out_->data(), args_);
      if (s != miopenStatusSuccess) return std::string("execute: ") + miopenGetErrorString(s) + ": " + hipfuseGetLastErrorMessage();
    }
    const hipError_t e = hipStreamSynchronize(stream);
    if (e != hipSuccess) return std::string("hipStreamSynchronize: ") + hipGetErrorString(e);
    return "";
  }

  // Main thread, after the run: output against the reference, guard bytes intact.
  void check() {
    CAPTURE(name_of(recipe_));
    CHECK(out_->buffer.guard_intact());
    const ref::Tensor got = out_->download();
    REQUIRE(got.numel() == expected_.numel());
    const ref::Verdict v = ref::compare(got.data.data(), expected_.data.data(), got.numel(),
                                        ref::default_tolerance(ref_type(out_->desc.type), reduction_));
    CHECK_MESSAGE(v.kind != ref::Verdict::failed, v.message);
  }
  Recipe recipe() const { return recipe_; }

 private:
  std::uint64_t next() { return seed_ * 1000003u + counter_++; }
  miopenTensorDescriptor_t keep(miopenTensorDescriptor_t d) {
    descriptors_.push_back(d);
    return d;
  }
  DeviceTensor* data(const TensorDesc& d, ref::Tensor host) {
    owned_.push_back(std::make_unique<DeviceTensor>(d, std::move(host)));
    return owned_.back().get();
  }
  DeviceTensor* param(const std::vector<std::int64_t>& l, ref::Tensor host) {
    return data(TensorDesc::packed(DataType::float32, l, Layout::nchw), std::move(host));
  }
  void input(const TensorDesc& x) {
    in_ = data(x, random_tensor(x.lengths, 0.0, 1.0, next(), x.type));
    in_desc_ = keep(api_tensor(x));
    REQUIRE(miopenCreateFusionPlan(&plan_, miopenVerticalFusion, in_desc_) == miopenStatusSuccess);
    REQUIRE(miopenCreateOperatorArgs(&args_) == miopenStatusSuccess);
  }
  void output(const TensorDesc& y) {
    out_ = data(y, ref::make_tensor(y.lengths));
    out_desc_ = keep(api_tensor(y));
  }
  void bn_inference(std::int64_t c) {
    const std::vector<std::int64_t> l{1, c, 1, 1};
    DeviceTensor* scale = param(l, random_tensor(l, 1.0, 0.25, next(), DataType::float32));
    DeviceTensor* bias = param(l, random_tensor(l, 0.0, 0.5, next(), DataType::float32));
    DeviceTensor* mean = param(l, random_tensor(l, 0.0, 0.5, next(), DataType::float32));
    DeviceTensor* var = param(l, uniform_tensor(l, 0.25, 2.0, next(), DataType::float32));
    miopenTensorDescriptor_t bn = keep(api_tensor(TensorDesc::packed(DataType::float32, l, Layout::nchw)));
    miopenFusionOpDescriptor_t op_bn = nullptr, op_act = nullptr;
    REQUIRE(miopenCreateOpBatchNormInference(plan_, &op_bn, miopenBNSpatial, bn) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpActivationForward(plan_, &op_act, miopenActivationLEAKYRELU) == miopenStatusSuccess);
    REQUIRE(miopenSetOpArgsBatchNormInference(args_, op_bn, nullptr, nullptr, scale->data(), bias->data(), mean->data(),
                                              var->data(), 1e-5) == miopenStatusSuccess);
    REQUIRE(miopenSetOpArgsActivForward(args_, op_act, nullptr, nullptr, 0.125, 0, 0) == miopenStatusSuccess);
    ref_ops_.push_back(ref::BnInferenceOp{ref::BnMode::spatial, scale->host, bias->host, mean->host, var->host, 1e-5});
    ref_ops_.push_back(ref::ActivationForwardOp{ref::ActivationMode::leakyrelu, 0.125, 0, 0});
  }

  Recipe recipe_;
  std::uint64_t seed_, counter_ = 0;
  std::vector<std::unique_ptr<DeviceTensor>> owned_;
  std::vector<miopenTensorDescriptor_t> descriptors_;
  DeviceTensor* in_ = nullptr;
  DeviceTensor* out_ = nullptr;
  miopenTensorDescriptor_t in_desc_ = nullptr, out_desc_ = nullptr;
  miopenFusionPlanDescriptor_t plan_ = nullptr;
  miopenOperatorArgs_t args_ = nullptr;
  std::vector<ref::Op> ref_ops_;
  ref::Tensor expected_;
  std::int64_t reduction_ = 1;
};

struct ThreadResult {
  std::string error;
  float kernel_ms = -1;
};

// Runs cases[t] on thread t with its own handle and stream; rounds > 1 recompile (memory
// cache hits) and execute again.
std::vector<ThreadResult> run_threads(std::vector<std::unique_ptr<ApiCase>>& cases, int rounds) {
  std::vector<ThreadResult> results(cases.size());
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (std::size_t t = 0; t < cases.size(); ++t) {
    threads.emplace_back([&, t] {
      ThreadResult& r = results[t];
      hipStream_t stream = nullptr;
      if (hipStreamCreate(&stream) != hipSuccess) {
        r.error = "hipStreamCreate failed";
        return;
      }
      miopenHandle_t handle = nullptr;
      miopenStatus_t s = miopenCreateWithStream(&handle, stream);
      if (s == miopenStatusSuccess && t % 2 == 1) s = miopenEnableProfiling(handle, true);
      // Start together, so that compiles really overlap.
      ++ready;
      while (ready.load() < static_cast<int>(cases.size())) std::this_thread::yield();
      if (s != miopenStatusSuccess) {
        r.error = std::string("handle: ") + miopenGetErrorString(s) + ": " + hipfuseGetLastErrorMessage();
      }
      for (int round = 0; round < rounds && r.error.empty(); ++round) r.error = cases[t]->run(handle, stream, 3);
      if (r.error.empty() && t % 2 == 1 && miopenGetKernelTime(handle, &r.kernel_ms) != miopenStatusSuccess) {
        r.error = "miopenGetKernelTime failed";
      }
      if (handle != nullptr && miopenDestroy(handle) != miopenStatusSuccess) r.error += " (miopenDestroy failed)";
      (void)hipStreamDestroy(stream);
    });
  }
  for (auto& th : threads) th.join();
  return results;
}

}  // namespace

TEST_CASE("concurrency: 8 threads with their own handles and streams compile and execute at once") {
  // Threads t and t + 4 share a recipe; for recipes 0 and 1 they build the identical plan
  // (same kernel, compiled once and shared), for 2 and 3 a different channel count.
  std::vector<std::unique_ptr<ApiCase>> cases;
  for (int t = 0; t < 8; ++t) {
    const auto recipe = static_cast<Recipe>(t % 4);
    const int variant = t >= 4 && t % 4 >= 2 ? 1 : 0;
    cases.push_back(std::make_unique<ApiCase>(recipe, variant, 100 + t));
  }
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  hipfuseResetKernelCacheStats();
  const auto results = run_threads(cases, 2);
  for (std::size_t t = 0; t < cases.size(); ++t) {
    CAPTURE(t);
    CAPTURE(name_of(cases[t]->recipe()));
    CHECK_MESSAGE(results[t].error.empty(), results[t].error);
    if (t % 2 == 1) CHECK(results[t].kernel_ms > 0);
    cases[t]->check();
  }
  hipfuseKernelCacheStats stats{};
  REQUIRE(hipfuseGetKernelCacheStats(&stats) == miopenStatusSuccess);
  MESSAGE("kernel cache: " << stats.memoryHits << " memory hits, " << stats.diskHits << " disk hits, " << stats.compiles
                           << " compiles");
  // The second round of compiles finds every kernel loaded: at least one memory hit each.
  CHECK(stats.memoryHits >= 8);
  CHECK(stats.corruptEntries == 0);
}

TEST_CASE("concurrency: 8 threads run the same BN-training plan, one plan object (and scratch) each") {
  // The same recipe in every thread, one plan object per thread: the kernels are shared
  // through the cache, the plans (and their device scratch) are not.
  std::vector<std::unique_ptr<ApiCase>> cases;
  for (int t = 0; t < 8; ++t) cases.push_back(std::make_unique<ApiCase>(Recipe::bn_training_f32_nchw, 0, 200 + t));
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  const auto results = run_threads(cases, 1);
  for (std::size_t t = 0; t < cases.size(); ++t) {
    CAPTURE(t);
    CHECK_MESSAGE(results[t].error.empty(), results[t].error);
    cases[t]->check();
  }
}
