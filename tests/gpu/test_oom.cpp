// Device out-of-memory: where hipfuse itself allocates device memory, exhausting it first
// (hipMalloc in a loop, freed afterwards) must give miopenStatusAllocFailed with the reason,
// leak nothing, and leave the library usable. hipfuse allocates device memory in two places:
//   - the device scratch of the BN training / BN backward families when a plan needs
//     several partial sums per channel (DeviceScratch, lib/solvers/invoker_support.cpp),
//     allocated by miopenCompileFusionPlan;
//   - the loaded kernel modules (hipModuleLoadDataEx, lib/runtime/platform_*.cpp), on the
//     first compile of a kernel in the process (also through the one-shot
//     miopenConvolutionBiasActivationForward).
// Execution allocates nothing, so a compiled plan still runs with the device full.
// Also here: a convolution over more than 2^31 elements (64-bit indexing in the conv
// families; test_fused_large.cpp covers the pointwise family).
#include "gpu/test_fused_support.h"

#include "runtime/kernel_compiler.h"

#include <hipfuse/hipfuse.h>
#include <miopen/miopen.h>

#include <string>

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total = 0;
  HF_REQUIRE_HIP(hipMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

// Takes (nearly) all free device memory for its lifetime.
class Exhaust {
 public:
  Exhaust() {
    std::size_t size = std::size_t{1} << 37;
    while (size >= 256) {
      void* p = nullptr;
      if (hipMalloc(&p, size) == hipSuccess) {
        blocks_.push_back(p);
      } else {
        (void)hipGetLastError();
        size /= 2;
      }
    }
    MESSAGE("exhausted device memory with " << blocks_.size() << " blocks; " << free_device_memory() << " bytes left");
  }
  ~Exhaust() {
    for (void* p : blocks_) (void)hipFree(p);
  }
  Exhaust(const Exhaust&) = delete;
  Exhaust& operator=(const Exhaust&) = delete;

 private:
  std::vector<void*> blocks_;
};

struct Handle {
  miopenHandle_t h = nullptr;
  Handle() { REQUIRE(miopenCreate(&h) == miopenStatusSuccess); }
  ~Handle() { (void)miopenDestroy(h); }
  operator miopenHandle_t() const { return h; }
};

struct Desc {
  miopenTensorDescriptor_t d = nullptr;
  Desc(miopenDataType_t type, std::vector<int> lens) {
    REQUIRE(miopenCreateTensorDescriptor(&d) == miopenStatusSuccess);
    REQUIRE(miopenSetNdTensorDescriptorWithLayout(d, type, miopenTensorNCHW, lens.data(), static_cast<int>(lens.size())) ==
            miopenStatusSuccess);
  }
  ~Desc() { (void)miopenDestroyTensorDescriptor(d); }
  operator miopenTensorDescriptor_t() const { return d; }
};

// BN forward training + relu on 16x4x64x64: 65536 rows per channel, so the solver splits
// each channel into partial sums and allocates device scratch at compile.
struct BnTrainingPlan {
  Desc x{miopenFloat, {16, 4, 64, 64}};
  miopenFusionPlanDescriptor_t plan = nullptr;
  BnTrainingPlan() {
    REQUIRE(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x) == miopenStatusSuccess);
    miopenFusionOpDescriptor_t op = nullptr;
    REQUIRE(miopenCreateOpBatchNormForward(plan, &op, miopenBNSpatial, false) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpActivationForward(plan, &op, miopenActivationRELU) == miopenStatusSuccess);
  }
  ~BnTrainingPlan() { (void)miopenDestroyFusionPlan(plan); }
};

void check_alloc_failed(miopenStatus_t s) {
  const std::string message = hipfuseGetLastErrorMessage();
  CAPTURE(message);
  CHECK(std::string(miopenGetErrorString(s)) == "miopenStatusAllocFailed");
  CHECK(message.find("memory") != std::string::npos);
}

// Free memory may move by a little (the driver's own bookkeeping); a leak of a plan's
// scratch or a module would show as more than this after several failed attempts.
constexpr std::size_t kSlack = std::size_t{8} << 20;

}  // namespace

TEST_CASE("oom: device scratch that cannot be allocated at compile is AllocFailed, leaking nothing") {
  Handle h;
  {
    BnTrainingPlan warm;  // loads the kernel, so the failures below are the scratch alone
    REQUIRE(miopenCompileFusionPlan(h, warm.plan) == miopenStatusSuccess);
  }
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  const std::size_t before = free_device_memory();
  {
    Exhaust full;
    for (int i = 0; i < 5; ++i) {
      BnTrainingPlan p;
      check_alloc_failed(miopenCompileFusionPlan(h, p.plan));
      hipfuseFusionPlanInfo info{};
      REQUIRE(hipfuseGetFusionPlanInfo(p.plan, &info) == miopenStatusSuccess);
      CHECK(info.compiled == 0);  // a failed compile leaves the plan unexecutable
    }
  }
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  const std::size_t after = free_device_memory();
  CHECK_MESSAGE(after + kSlack >= before, "free device memory went from " << before << " to " << after);
  BnTrainingPlan again;
  CHECK(miopenCompileFusionPlan(h, again.plan) == miopenStatusSuccess);
}

// Fixed bug module-oom (lib/runtime/platform_nvidia.cpp / platform_amd.cpp load_module):
// hipModuleLoadDataEx's hipErrorOutOfMemory was reported as InternalError ("loading the
// compiled kernel failed: out of memory", seen on the H200); it is AllocFailed now.
TEST_CASE("oom (fixed bug module-oom): a kernel module that cannot be loaded is AllocFailed, and the next compile works") {
  Handle h;
  BnTrainingPlan p;
  // Nothing loaded in this process: the compile must load the module (from the disk cache
  // or hipRTC) while the device is full.
  rt::KernelCompiler::instance().clear_memory_cache();
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  {
    Exhaust full;
    const miopenStatus_t s = miopenCompileFusionPlan(h, p.plan);
    // Module loading (hipModuleLoadDataEx) reports hipErrorOutOfMemory; the loader must
    // turn that into AllocFailed, like every other device allocation failure.
    check_alloc_failed(s);
  }
  CHECK(miopenCompileFusionPlan(h, p.plan) == miopenStatusSuccess);
}

TEST_CASE("oom: a compiled plan still executes with the device full (execution allocates nothing)") {
  Handle h;
  Desc x(miopenFloat, {2, 8, 16, 16}), b(miopenFloat, {1, 8, 1, 1});
  miopenFusionPlanDescriptor_t plan = nullptr;
  REQUIRE(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x) == miopenStatusSuccess);
  miopenFusionOpDescriptor_t bias = nullptr, relu = nullptr;
  REQUIRE(miopenCreateOpBiasForward(plan, &bias, b) == miopenStatusSuccess);
  REQUIRE(miopenCreateOpActivationForward(plan, &relu, miopenActivationRELU) == miopenStatusSuccess);
  REQUIRE(miopenCompileFusionPlan(h, plan) == miopenStatusSuccess);
  const std::size_t n = 2 * 8 * 16 * 16;
  std::vector<float> host_x(n), host_b(8), host_y(n, -1);
  for (std::size_t i = 0; i < n; ++i) host_x[i] = static_cast<float>(static_cast<int>(i % 17) - 8);
  for (std::size_t c = 0; c < 8; ++c) host_b[c] = static_cast<float>(c) - 3.5f;
  DeviceBuffer dx(n * 4), dy(n * 4), db(8 * 4);
  HF_REQUIRE_HIP(hipMemcpy(dx.data(), host_x.data(), n * 4, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemcpy(db.data(), host_b.data(), 8 * 4, hipMemcpyHostToDevice));
  miopenOperatorArgs_t args = nullptr;
  REQUIRE(miopenCreateOperatorArgs(&args) == miopenStatusSuccess);
  REQUIRE(miopenSetOpArgsBiasForward(args, bias, nullptr, nullptr, db.data()) == miopenStatusSuccess);
  REQUIRE(miopenSetOpArgsActivForward(args, relu, nullptr, nullptr, 0, 0, 0) == miopenStatusSuccess);
  {
    Exhaust full;
    CHECK(miopenExecuteFusionPlan(h, plan, x, dx.data(), x, dy.data(), args) == miopenStatusSuccess);
    HF_REQUIRE_HIP(hipDeviceSynchronize());
  }
  HF_REQUIRE_HIP(hipMemcpy(host_y.data(), dy.data(), n * 4, hipMemcpyDeviceToHost));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float expected = std::max(0.0f, host_x[i] + host_b[(i / 256) % 8]);  // exact in fp32
    wrong += host_y[i] != expected;
  }
  CHECK(wrong == 0);
  CHECK(dy.guard_intact());
  (void)miopenDestroyOperatorArgs(args);
  (void)miopenDestroyFusionPlan(plan);
}

// Same fixed bug module-oom, through the one-shot call.
TEST_CASE("oom (fixed bug module-oom): the one-shot conv+bias+activation call is AllocFailed when its first compile cannot load") {
  Handle h;
  Desc x(miopenFloat, {1, 3, 9, 9}), w(miopenFloat, {5, 3, 3, 3}), y(miopenFloat, {1, 5, 9, 9}), b(miopenFloat, {1, 5, 1, 1});
  miopenConvolutionDescriptor_t conv = nullptr;
  REQUIRE(miopenCreateConvolutionDescriptor(&conv) == miopenStatusSuccess);
  REQUIRE(miopenInitConvolutionDescriptor(conv, miopenConvolution, 1, 1, 1, 1, 1, 1) == miopenStatusSuccess);
  miopenActivationDescriptor_t act = nullptr;
  REQUIRE(miopenCreateActivationDescriptor(&act) == miopenStatusSuccess);
  REQUIRE(miopenSetActivationDescriptor(act, miopenActivationRELU, 0, 0, 0) == miopenStatusSuccess);
  DeviceBuffer dx(81 * 3 * 4), dw(5 * 27 * 4), dz(5 * 81 * 4), db(5 * 4), dy(5 * 81 * 4);
  HF_REQUIRE_HIP(hipMemset(dx.data(), 0, 81 * 3 * 4));
  HF_REQUIRE_HIP(hipMemset(dw.data(), 0, 5 * 27 * 4));
  HF_REQUIRE_HIP(hipMemset(dz.data(), 0, 5 * 81 * 4));
  HF_REQUIRE_HIP(hipMemset(db.data(), 0, 5 * 4));
  rt::KernelCompiler::instance().clear_memory_cache();
  const auto call = [&] {
    return miopenConvolutionBiasActivationForward(h, nullptr, x, dx.data(), w, dw.data(), conv, miopenConvolutionFwdAlgoDirect,
                                                  nullptr, 0, nullptr, y, dz.data(), b, db.data(), act, y, dy.data());
  };
  {
    Exhaust full;
    check_alloc_failed(call());
  }
  // The failed compile is not cached on the handle: the next call compiles and runs.
  CHECK(call() == miopenStatusSuccess);
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  (void)miopenDestroyActivationDescriptor(act);
  (void)miopenDestroyConvolutionDescriptor(conv);
}

// ---- more than 2^31 elements through a convolution -----------------------------------------

namespace {

constexpr std::size_t kNeedFreeBytes = std::size_t{40} << 30;

// x[i] = k/256, k = pattern_index(i) - 1000 in [-1000, 1000]: exact in fp16; with identity
// 1x1 weights and bias c/8 - 1/16 the result relu(x + bias) is exact in fp32 and in fp16.
// The 2001 values (and results per channel) are encoded once: the host loops over 2^31
// elements only look them up.
std::size_t pattern_index(std::uint64_t i) { return static_cast<std::size_t>((i * 2654435761ull) % 2001); }
double pattern_value(std::size_t k) { return (static_cast<double>(k) - 1000.0) / 256.0; }
double bias_of(std::int64_t c) { return static_cast<double>(c) / 8.0 - 1.0 / 16.0; }

void run_large_conv(Lay lay) {
  std::size_t free_bytes = 0, total = 0;
  HF_REQUIRE_HIP(hipMemGetInfo(&free_bytes, &total));
  if (free_bytes < kNeedFreeBytes) {
    MESSAGE("skipped: " << (free_bytes >> 30) << " GiB free, the >2^31-element conv needs 40");
    return;
  }
  // 1 x 2 x 32769 x 32768 = 2^31 + 2^16 elements in and out.
  ConvGeometry g;
  g.k = 2;
  g.filter = {1, 1};
  g.pads = {0, 0};
  PlanBuilder b(DataType::half, {1, 2, 32769, 32768}, lay);
  b.conv(g).bias().act(ActivationMode::relu);
  auto plan = b.take();
  const TensorDesc x = plan->input();
  REQUIRE(x.element_count() > (std::int64_t{1} << 31));
  plan->compile(device_target());
  MESSAGE("solver: " << plan->compile_info().solver);

  const std::int64_t n = x.element_count();
  const bool channels_last = lay == Lay::nhwc;
  const std::int64_t spatial = n / 2;
  std::uint16_t x_code[2001], y_code[2][2001];
  for (std::size_t k = 0; k < 2001; ++k) {
    ref::encode(ref::DType::f16, pattern_value(k), &x_code[k]);
    for (int c = 0; c < 2; ++c) ref::encode(ref::DType::f16, std::max(0.0, pattern_value(k) + bias_of(c)), &y_code[c][k]);
  }
  std::vector<std::uint16_t> host(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = x_code[pattern_index(static_cast<std::uint64_t>(i))];
  std::uint16_t weights[4], bias[2];
  // w[k][c] = (k == c); in KCYX and KYXC alike for a 1x1 filter.
  for (int k = 0; k < 2; ++k) {
    for (int c = 0; c < 2; ++c) ref::encode(ref::DType::f16, k == c ? 1.0 : 0.0, &weights[k * 2 + c]);
    ref::encode(ref::DType::f16, bias_of(k), &bias[k]);
  }
  const std::size_t bytes = static_cast<std::size_t>(n) * 2;
  DeviceBuffer dx(bytes), dy(bytes), dw(sizeof weights), db(sizeof bias);
  HF_REQUIRE_HIP(hipMemcpy(dx.data(), host.data(), bytes, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemcpy(dw.data(), weights, sizeof weights, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemcpy(db.data(), bias, sizeof bias, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemset(dy.data(), 0xFF, bytes));
  OperatorArgs args;
  args.slots = {ConvForwardArgs{dw.data(), 1.0}, BiasForwardArgs{db.data()}, ActivationForwardArgs{0, 0, 0}};
  HF_REQUIRE_HIP(plan->invoker().launch(nullptr, dx.data(), dy.data(), args));
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  HF_REQUIRE_HIP(hipMemcpy(host.data(), dy.data(), bytes, hipMemcpyDeviceToHost));
  CHECK(dy.guard_intact());
  std::int64_t wrong = 0, first_wrong = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t c = channels_last ? i % 2 : (i / spatial) % 2;
    const std::uint16_t expected = y_code[c][pattern_index(static_cast<std::uint64_t>(i))];
    if (host[static_cast<std::size_t>(i)] != expected && wrong++ == 0) first_wrong = i;
  }
  CHECK_MESSAGE(wrong == 0, wrong << " wrong elements, first at offset " << first_wrong);
}

}  // namespace

TEST_CASE("large: conv 1x1 + bias + relu over more than 2^31 elements (fp16 NCHW)") { run_large_conv(Lay::nchw); }

TEST_CASE("large: conv 1x1 + bias + relu over more than 2^31 elements (fp16 NHWC)") { run_large_conv(Lay::nhwc); }
