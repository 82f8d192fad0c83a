// Every entry point misused, one table row per misuse: null pointers, objects of the wrong
// kind, destroyed objects, values outside the enums and ranges, shapes and types that do
// not fit, wrong op kinds, out-of-range indices, and execution before compile. Each row
// must give its documented status and a reason naming the function; none may change a
// plan it was given.
#include "test_api_support.h"

#include <climits>
#include <functional>
#include <set>

using namespace api_test;

namespace {

void* dev(std::uintptr_t n) { return reinterpret_cast<void*>(0x10000 * n); }

template <typename To, typename From>
To as(From from) {
  return reinterpret_cast<To>(from);
}

// Live objects to misuse, and dead ones (destroyed; their shells stay in quarantine).
struct World {
  FakeHandle h;
  Tensor x{miopenFloat, 2, 4, 8, 8};
  Tensor w{miopenFloat, 8, 4, 3, 3};
  Tensor b{miopenFloat, 1, 8, 1, 1};
  Tensor y{miopenFloat, 2, 8, 8, 8};
  Tensor bn4{miopenFloat, 1, 4, 1, 1};
  Tensor x5{miopenFloat, miopenTensorNCDHW, {2, 4, 3, 8, 8}};
  Tensor x3;
  Tensor unset;
  Tensor xi{miopenInt32, 1, 4, 8, 8};
  Tensor bi{miopenInt32, 1, 4, 1, 1};
  Conv conv{1, 1, 1};
  Conv conv3d;
  Activation act;
  Args args;
  Plan cba{x};   // conv, bias, relu
  Plan bnp{x};   // bn fwd (running), bn bwd, bn inf, activ bwd, residual
  Plan empty{x};
  Plan horizontal{x, miopenHorizontalFusion};
  Plan int32_bias{xi};
  miopenFusionOpDescriptor_t conv_op{}, bias_op{}, relu_op{};
  miopenFusionOpDescriptor_t bn_fwd_op{}, bn_bwd_op{}, bn_inf_op{}, activ_bwd_op{}, residual_op{};

  miopenHandle_t dead_handle{};
  miopenTensorDescriptor_t dead_tensor{};
  miopenConvolutionDescriptor_t dead_conv{};
  miopenActivationDescriptor_t dead_act{};
  miopenFusionPlanDescriptor_t dead_plan{};
  miopenOperatorArgs_t dead_args{};
  miopenFusionOpDescriptor_t dead_op{};

  // Scratch outputs.
  int i = 0, i2 = 0, i3 = 0, i4 = 0, i5 = 0, i6 = 0, i7 = 0, i8 = 0;
  int arr[8] = {};
  size_t sz = 0;
  float f = 0;
  double d1 = 0, d2 = 0, d3 = 0;
  miopenDataType_t dt{};
  miopenConvolutionMode_t cm{};
  miopenActivationMode_t am{};
  miopenAcceleratorQueue_t stream{};
  miopenConvFwdAlgorithm_t algos[4] = {};
  miopenFusionOpDescriptor_t op{};
  hipfuseFusionPlanInfo info{};

  World() {
    const int dims3[] = {2, 4, 8};
    REQUIRE(miopenSetTensorDescriptor(x3, miopenFloat, 3, dims3, nullptr) == miopenStatusSuccess);
    const int p3[] = {1, 1, 1}, s3[] = {1, 1, 1};
    REQUIRE(miopenInitConvolutionNdDescriptor(conv3d, 3, p3, s3, s3, miopenConvolution) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpConvForward(cba, &conv_op, conv, w) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpBiasForward(cba, &bias_op, b) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpActivationForward(cba, &relu_op, miopenActivationRELU) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpBatchNormForward(bnp, &bn_fwd_op, miopenBNSpatial, true) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpBatchNormBackward(bnp, &bn_bwd_op, miopenBNSpatial) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpBatchNormInference(bnp, &bn_inf_op, miopenBNSpatial, bn4) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpActivationBackward(bnp, &activ_bwd_op, miopenActivationRELU) == miopenStatusSuccess);
    REQUIRE(hipfuseCreateOpResidualAdd(bnp, &residual_op, x) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpActivationForward(horizontal, &op, miopenActivationRELU) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpBiasForward(int32_bias, &op, bi) == miopenStatusSuccess);

    dead_handle = new hipfuse::api::HandleObject();
    REQUIRE(miopenDestroy(dead_handle) == miopenStatusSuccess);
    REQUIRE(miopenCreateTensorDescriptor(&dead_tensor) == miopenStatusSuccess);
    REQUIRE(miopenDestroyTensorDescriptor(dead_tensor) == miopenStatusSuccess);
    REQUIRE(miopenCreateConvolutionDescriptor(&dead_conv) == miopenStatusSuccess);
    REQUIRE(miopenDestroyConvolutionDescriptor(dead_conv) == miopenStatusSuccess);
    REQUIRE(miopenCreateActivationDescriptor(&dead_act) == miopenStatusSuccess);
    REQUIRE(miopenDestroyActivationDescriptor(dead_act) == miopenStatusSuccess);
    REQUIRE(miopenCreateOperatorArgs(&dead_args) == miopenStatusSuccess);
    REQUIRE(miopenDestroyOperatorArgs(dead_args) == miopenStatusSuccess);
    REQUIRE(miopenCreateFusionPlan(&dead_plan, miopenVerticalFusion, x) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpActivationForward(dead_plan, &dead_op, miopenActivationRELU) == miopenStatusSuccess);
    REQUIRE(miopenDestroyFusionPlan(dead_plan) == miopenStatusSuccess);
  }
};

struct Row {
  const char* call;
  miopenStatus_t expected;
  std::function<miopenStatus_t()> run;
};

#define ROW(expected, ...) Row{#__VA_ARGS__, expected, [&] { return __VA_ARGS__; }}
constexpr miopenStatus_t BAD = miopenStatusBadParm;
constexpr miopenStatus_t INVALID = miopenStatusInvalidValue;
constexpr miopenStatus_t UNSUPPORTED = miopenStatusUnsupportedOp;
constexpr miopenStatus_t NOT_IMPL = miopenStatusNotImplemented;

std::vector<Row> rows(World& o) {
  auto& h = o.h;
  const miopenHandle_t as_handle = as<miopenHandle_t>(o.x.d);
  const miopenTensorDescriptor_t as_tensor = as<miopenTensorDescriptor_t>(o.conv.d);
  const miopenConvolutionDescriptor_t as_conv = as<miopenConvolutionDescriptor_t>(o.act.d);
  const miopenActivationDescriptor_t as_act = as<miopenActivationDescriptor_t>(o.cba.d);
  const miopenFusionPlanDescriptor_t as_plan = as<miopenFusionPlanDescriptor_t>(o.args.d);
  const miopenOperatorArgs_t as_args = as<miopenOperatorArgs_t>(o.h.object);
  const miopenFusionOpDescriptor_t as_op = as<miopenFusionOpDescriptor_t>(o.x.d);
  const auto dtype = [](int v) { return enum_value<miopenDataType_t>(v); };
  const auto layout = [](int v) { return enum_value<miopenTensorLayout_t>(v); };
  const auto cmode = [](int v) { return enum_value<miopenConvolutionMode_t>(v); };
  const auto amode = [](int v) { return enum_value<miopenActivationMode_t>(v); };
  const auto bnmode = [](int v) { return enum_value<miopenBatchNormMode_t>(v); };
  const auto attr = [](int v) { return enum_value<miopenConvolutionAttrib_t>(v); };
  const auto algo = [](int v) { return enum_value<miopenConvFwdAlgorithm_t>(v); };
  const auto alloc = [](void*, size_t) -> void* { return nullptr; };
  const auto dealloc = [](void*, void*) {};
  const int l4[] = {2, 4, 8, 8}, l5[] = {2, 4, 3, 8, 8}, l3[] = {2, 4, 8}, l0[] = {2, 0, 8, 8};
  const int s4[] = {256, 64, 8, 1}, s0[] = {256, 64, 0, 1}, sneg[] = {256, -64, 8, 1};
  const int pads[] = {1, 1, 1}, ones[] = {1, 1, 1}, negs[] = {-1, 0, 0}, zeros[] = {0, 0, 0};

  return {
      // Handle.
      ROW(BAD, miopenCreate(nullptr)),
      ROW(BAD, miopenCreateWithStream(nullptr, nullptr)),
      ROW(BAD, miopenDestroy(o.dead_handle)),
      ROW(BAD, miopenDestroy(as_handle)),
      ROW(BAD, miopenSetStream(nullptr, nullptr)),
      ROW(BAD, miopenSetStream(o.dead_handle, nullptr)),
      ROW(BAD, miopenSetStream(as_handle, nullptr)),
      ROW(BAD, miopenGetStream(nullptr, &o.stream)),
      ROW(BAD, miopenGetStream(h, nullptr)),
      ROW(BAD, miopenGetStream(o.dead_handle, &o.stream)),
      ROW(BAD, miopenGetStream(as_handle, &o.stream)),
      ROW(BAD, miopenSetAllocator(nullptr, alloc, dealloc, nullptr)),
      ROW(BAD, miopenSetAllocator(o.dead_handle, alloc, dealloc, nullptr)),
      ROW(BAD, miopenSetAllocator(as_handle, nullptr, nullptr, nullptr)),
      ROW(BAD, miopenGetKernelTime(nullptr, &o.f)),
      ROW(BAD, miopenGetKernelTime(h, nullptr)),
      ROW(BAD, miopenGetKernelTime(o.dead_handle, &o.f)),
      ROW(BAD, miopenGetKernelTime(as_handle, &o.f)),
      ROW(BAD, miopenEnableProfiling(nullptr, true)),
      ROW(BAD, miopenEnableProfiling(o.dead_handle, false)),
      ROW(BAD, miopenEnableProfiling(as_handle, false)),

      // Tensor descriptors.
      ROW(BAD, miopenCreateTensorDescriptor(nullptr)),
      ROW(BAD, miopenSet4dTensorDescriptor(nullptr, miopenFloat, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.dead_tensor, miopenFloat, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(as_tensor, miopenFloat, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.unset, dtype(4), 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.unset, dtype(-1), 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.unset, dtype(10), 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.unset, miopenFloat, 0, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.unset, miopenFloat, 1, -1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.unset, miopenFloat, 1, 1, 0, 1)),
      ROW(BAD, miopenSet4dTensorDescriptor(o.unset, miopenFloat, 1, 1, 1, INT_MIN)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(nullptr, miopenFloat, 1, 1, 1, 1, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.dead_tensor, miopenFloat, 1, 1, 1, 1, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(as_tensor, miopenFloat, 1, 1, 1, 1, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.unset, dtype(4), 1, 1, 1, 1, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.unset, miopenFloat, 0, 1, 1, 1, 1, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.unset, miopenFloat, 1, 1, 1, 1, 0, 1, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.unset, miopenFloat, 1, 1, 1, 1, 1, 0, 1, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.unset, miopenFloat, 1, 1, 1, 1, 1, 1, 0, 1)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.unset, miopenFloat, 1, 1, 1, 1, 1, 1, 1, 0)),
      ROW(BAD, miopenSet4dTensorDescriptorEx(o.unset, miopenFloat, 1, 1, 1, 1, 1, 1, 1, -4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(nullptr, miopenFloat, miopenTensorNCHW, l4, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.dead_tensor, miopenFloat, miopenTensorNCHW, l4, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(as_tensor, miopenFloat, miopenTensorNCHW, l4, 4)),
      ROW(INVALID, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHW, nullptr, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, dtype(11), miopenTensorNCHW, l4, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHW, l4, 0)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHW, l4, -1)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHW, l4, 9)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHW, l5, 5)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNHWC, l3, 3)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCDHW, l4, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNDHWC, l4, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorCHWN, l5, 5)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, layout(9), l4, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, layout(-1), l4, 4)),
      ROW(NOT_IMPL, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHWc4, l4, 4)),
      ROW(NOT_IMPL, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHWc8, l4, 4)),
      ROW(NOT_IMPL, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorCHWNc4, l4, 4)),
      ROW(NOT_IMPL, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorCHWNc8, l4, 4)),
      ROW(BAD, miopenSetNdTensorDescriptorWithLayout(o.unset, miopenFloat, miopenTensorNCHW, l0, 4)),
      ROW(BAD, miopenGet4dTensorDescriptor(nullptr, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.dead_tensor, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(as_tensor, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, nullptr, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, nullptr, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, &o.i, nullptr, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, &o.i, &o.i2, nullptr, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, &o.i, &o.i2, &o.i3, nullptr, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, nullptr, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, nullptr, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, nullptr, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, nullptr)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.x5, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenGet4dTensorDescriptor(o.unset, &o.dt, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6, &o.i7, &o.i8)),
      ROW(BAD, miopenSetTensorDescriptor(nullptr, miopenFloat, 4, l4, s4)),
      ROW(BAD, miopenSetTensorDescriptor(o.dead_tensor, miopenFloat, 4, l4, s4)),
      ROW(BAD, miopenSetTensorDescriptor(as_tensor, miopenFloat, 4, l4, s4)),
      ROW(INVALID, miopenSetTensorDescriptor(o.unset, miopenFloat, 4, nullptr, s4)),
      ROW(BAD, miopenSetTensorDescriptor(o.unset, miopenFloat, 0, l4, s4)),
      ROW(BAD, miopenSetTensorDescriptor(o.unset, miopenFloat, -2, l4, s4)),
      ROW(BAD, miopenSetTensorDescriptor(o.unset, miopenFloat, 9, l4, s4)),
      ROW(BAD, miopenSetTensorDescriptor(o.unset, miopenFloat, 4, l0, s4)),
      ROW(BAD, miopenSetTensorDescriptor(o.unset, miopenFloat, 4, l4, s0)),
      ROW(BAD, miopenSetTensorDescriptor(o.unset, miopenFloat, 4, l4, sneg)),
      ROW(BAD, miopenSetTensorDescriptor(o.unset, dtype(12), 4, l4, s4)),
      ROW(BAD, miopenGetTensorDescriptorSize(nullptr, &o.i)),
      ROW(BAD, miopenGetTensorDescriptorSize(o.x, nullptr)),
      ROW(BAD, miopenGetTensorDescriptorSize(o.dead_tensor, &o.i)),
      ROW(BAD, miopenGetTensorDescriptorSize(as_tensor, &o.i)),
      ROW(BAD, miopenGetTensorDescriptor(nullptr, &o.dt, o.arr, o.arr)),
      ROW(BAD, miopenGetTensorDescriptor(o.x, nullptr, o.arr, o.arr)),
      ROW(BAD, miopenGetTensorDescriptor(o.x, &o.dt, nullptr, o.arr)),
      ROW(BAD, miopenGetTensorDescriptor(o.x, &o.dt, o.arr, nullptr)),
      ROW(BAD, miopenGetTensorDescriptor(o.dead_tensor, &o.dt, o.arr, o.arr)),
      ROW(BAD, miopenGetTensorDescriptor(as_tensor, &o.dt, o.arr, o.arr)),
      ROW(BAD, miopenGetTensorNumBytes(nullptr, &o.sz)),
      ROW(BAD, miopenGetTensorNumBytes(o.x, nullptr)),
      ROW(BAD, miopenGetTensorNumBytes(o.dead_tensor, &o.sz)),
      ROW(BAD, miopenGetTensorNumBytes(as_tensor, &o.sz)),
      ROW(BAD, miopenDestroyTensorDescriptor(o.dead_tensor)),
      ROW(BAD, miopenDestroyTensorDescriptor(as_tensor)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(nullptr, o.x, miopenBNSpatial)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.unset, nullptr, miopenBNSpatial)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.dead_tensor, o.x, miopenBNSpatial)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.unset, o.dead_tensor, miopenBNSpatial)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(as_tensor, o.x, miopenBNSpatial)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.unset, as_tensor, miopenBNSpatial)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.unset, o.x, bnmode(2))),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.unset, o.x, bnmode(-1))),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.unset, o.unset, miopenBNSpatial)),
      ROW(BAD, miopenDeriveBNTensorDescriptor(o.unset, o.x3, miopenBNPerActivation)),

      // Convolution descriptors.
      ROW(BAD, miopenCreateConvolutionDescriptor(nullptr)),
      ROW(BAD, miopenInitConvolutionDescriptor(nullptr, miopenConvolution, 0, 0, 1, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.dead_conv, miopenConvolution, 0, 0, 1, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(as_conv, miopenConvolution, 0, 0, 1, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, cmode(4), 0, 0, 1, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, cmode(-1), 0, 0, 1, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, miopenConvolution, -1, 0, 1, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, miopenConvolution, 0, -1, 1, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, miopenConvolution, 0, 0, 0, 1, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, miopenConvolution, 0, 0, 1, -2, 1, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, miopenConvolution, 0, 0, 1, 1, 0, 1)),
      ROW(BAD, miopenInitConvolutionDescriptor(o.conv, miopenConvolution, 0, 0, 1, 1, 1, -1)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(nullptr, 2, pads, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.dead_conv, 2, pads, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(as_conv, 2, pads, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 2, nullptr, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 2, pads, nullptr, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 2, pads, ones, nullptr, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 1, pads, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 4, pads, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 0, pads, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 3, negs, ones, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 3, pads, zeros, ones, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 3, pads, ones, zeros, miopenConvolution)),
      ROW(BAD, miopenInitConvolutionNdDescriptor(o.conv, 2, pads, ones, ones, cmode(7))),
      ROW(BAD, miopenGetConvolutionSpatialDim(nullptr, &o.i)),
      ROW(BAD, miopenGetConvolutionSpatialDim(o.conv, nullptr)),
      ROW(BAD, miopenGetConvolutionSpatialDim(o.dead_conv, &o.i)),
      ROW(BAD, miopenGetConvolutionSpatialDim(as_conv, &o.i)),
      ROW(BAD, miopenGetConvolutionDescriptor(nullptr, &o.cm, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv, nullptr, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv, &o.cm, nullptr, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv, &o.cm, &o.i, nullptr, &o.i3, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv, &o.cm, &o.i, &o.i2, nullptr, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv, &o.cm, &o.i, &o.i2, &o.i3, nullptr, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv, &o.cm, &o.i, &o.i2, &o.i3, &o.i4, nullptr, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv, &o.cm, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, nullptr)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.conv3d, &o.cm, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(o.dead_conv, &o.cm, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionDescriptor(as_conv, &o.cm, &o.i, &o.i2, &o.i3, &o.i4, &o.i5, &o.i6)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(nullptr, 3, &o.i, o.arr, o.arr, o.arr, &o.cm)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(o.conv, 3, nullptr, o.arr, o.arr, o.arr, &o.cm)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(o.conv, 3, &o.i, nullptr, o.arr, o.arr, &o.cm)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(o.conv, 3, &o.i, o.arr, nullptr, o.arr, &o.cm)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(o.conv, 3, &o.i, o.arr, o.arr, nullptr, &o.cm)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(o.conv, 3, &o.i, o.arr, o.arr, o.arr, nullptr)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(o.conv3d, 2, &o.i, o.arr, o.arr, o.arr, &o.cm)),
      ROW(BAD, miopenGetConvolutionNdDescriptor(o.dead_conv, 3, &o.i, o.arr, o.arr, o.arr, &o.cm)),
      ROW(BAD, miopenSetConvolutionGroupCount(nullptr, 2)),
      ROW(BAD, miopenSetConvolutionGroupCount(o.conv, 0)),
      ROW(BAD, miopenSetConvolutionGroupCount(o.conv, -3)),
      ROW(BAD, miopenSetConvolutionGroupCount(o.dead_conv, 2)),
      ROW(BAD, miopenSetConvolutionGroupCount(as_conv, 2)),
      ROW(BAD, miopenGetConvolutionGroupCount(nullptr, &o.i)),
      ROW(BAD, miopenGetConvolutionGroupCount(o.conv, nullptr)),
      ROW(BAD, miopenGetConvolutionGroupCount(o.dead_conv, &o.i)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(nullptr, o.x, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, nullptr, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.x, nullptr, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.x, o.w, nullptr, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.x, o.w, &o.i, nullptr, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.x, o.w, &o.i, &o.i2, nullptr, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.x, o.w, &o.i, &o.i2, &o.i3, nullptr)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.y, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.xi, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv3d, o.x, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.unset, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.dead_conv, o.x, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, as_tensor, o.w, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionForwardOutputDim(o.conv, o.x, o.dead_tensor, &o.i, &o.i2, &o.i3, &o.i4)),
      ROW(BAD, miopenGetConvolutionNdForwardOutputDim(nullptr, o.x, o.w, &o.i, o.arr)),
      ROW(BAD, miopenGetConvolutionNdForwardOutputDim(o.conv, nullptr, o.w, &o.i, o.arr)),
      ROW(BAD, miopenGetConvolutionNdForwardOutputDim(o.conv, o.x, nullptr, &o.i, o.arr)),
      ROW(BAD, miopenGetConvolutionNdForwardOutputDim(o.conv, o.x, o.w, nullptr, o.arr)),
      ROW(BAD, miopenGetConvolutionNdForwardOutputDim(o.conv, o.x, o.w, &o.i, nullptr)),
      ROW(BAD, miopenGetConvolutionNdForwardOutputDim(o.conv, o.x5, o.w, &o.i, o.arr)),
      ROW(BAD, miopenSetConvolutionAttribute(nullptr, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1)),
      ROW(BAD, miopenSetConvolutionAttribute(o.conv, attr(3), 0)),
      ROW(BAD, miopenSetConvolutionAttribute(o.conv, attr(-1), 0)),
      ROW(BAD, miopenSetConvolutionAttribute(o.conv, MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, 2)),
      ROW(BAD, miopenSetConvolutionAttribute(o.conv, MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, -2)),
      ROW(BAD, miopenSetConvolutionAttribute(o.conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 2)),
      ROW(BAD, miopenSetConvolutionAttribute(o.conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, -1)),
      ROW(BAD, miopenSetConvolutionAttribute(o.conv, attr(2), 2)),
      ROW(BAD, miopenSetConvolutionAttribute(o.dead_conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1)),
      ROW(BAD, miopenGetConvolutionAttribute(nullptr, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, &o.i)),
      ROW(BAD, miopenGetConvolutionAttribute(o.conv, attr(3), &o.i)),
      ROW(BAD, miopenGetConvolutionAttribute(o.conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, nullptr)),
      ROW(BAD, miopenGetConvolutionAttribute(o.dead_conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, &o.i)),
      ROW(BAD, miopenDestroyConvolutionDescriptor(o.dead_conv)),
      ROW(BAD, miopenDestroyConvolutionDescriptor(as_conv)),
      ROW(BAD, hipfuseSetConvolutionAllowTF32(nullptr, 1)),
      ROW(BAD, hipfuseSetConvolutionAllowTF32(o.conv, 2)),
      ROW(BAD, hipfuseSetConvolutionAllowTF32(o.conv, -1)),
      ROW(BAD, hipfuseSetConvolutionAllowTF32(o.dead_conv, 1)),
      ROW(BAD, hipfuseSetConvolutionAllowTF32(as_conv, 1)),
      ROW(BAD, hipfuseGetConvolutionAllowTF32(nullptr, &o.i)),
      ROW(BAD, hipfuseGetConvolutionAllowTF32(o.conv, nullptr)),

      // Activation descriptors.
      ROW(BAD, miopenCreateActivationDescriptor(nullptr)),
      ROW(BAD, miopenSetActivationDescriptor(nullptr, miopenActivationRELU, 0, 0, 0)),
      ROW(BAD, miopenSetActivationDescriptor(o.dead_act, miopenActivationRELU, 0, 0, 0)),
      ROW(BAD, miopenSetActivationDescriptor(as_act, miopenActivationRELU, 0, 0, 0)),
      ROW(BAD, miopenSetActivationDescriptor(o.act, amode(10), 0, 0, 0)),
      ROW(BAD, miopenSetActivationDescriptor(o.act, amode(-1), 0, 0, 0)),
      ROW(BAD, miopenGetActivationDescriptor(nullptr, &o.am, &o.d1, &o.d2, &o.d3)),
      ROW(BAD, miopenGetActivationDescriptor(o.act, nullptr, &o.d1, &o.d2, &o.d3)),
      ROW(BAD, miopenGetActivationDescriptor(o.act, &o.am, nullptr, &o.d2, &o.d3)),
      ROW(BAD, miopenGetActivationDescriptor(o.act, &o.am, &o.d1, nullptr, &o.d3)),
      ROW(BAD, miopenGetActivationDescriptor(o.act, &o.am, &o.d1, &o.d2, nullptr)),
      ROW(BAD, miopenGetActivationDescriptor(o.dead_act, &o.am, &o.d1, &o.d2, &o.d3)),
      ROW(BAD, miopenDestroyActivationDescriptor(o.dead_act)),
      ROW(BAD, miopenDestroyActivationDescriptor(as_act)),

      // Fusion plans.
      ROW(BAD, miopenCreateFusionPlan(nullptr, miopenVerticalFusion, o.x)),
      ROW(BAD, miopenCreateFusionPlan(&o.dead_plan, miopenVerticalFusion, nullptr)),
      ROW(BAD, miopenCreateFusionPlan(&o.dead_plan, miopenVerticalFusion, o.dead_tensor)),
      ROW(BAD, miopenCreateFusionPlan(&o.dead_plan, miopenVerticalFusion, as_tensor)),
      ROW(BAD, miopenCreateFusionPlan(&o.dead_plan, miopenVerticalFusion, o.unset)),
      ROW(BAD, miopenCreateFusionPlan(&o.dead_plan, miopenVerticalFusion, o.x3)),
      ROW(BAD, miopenCreateFusionPlan(&o.dead_plan, enum_value<miopenFusionDirection_t>(2), o.x)),
      ROW(BAD, miopenCreateFusionPlan(&o.dead_plan, enum_value<miopenFusionDirection_t>(-1), o.x)),
      ROW(BAD, miopenDestroyFusionPlan(o.dead_plan)),
      ROW(BAD, miopenDestroyFusionPlan(as_plan)),
      ROW(BAD, miopenCompileFusionPlan(nullptr, o.cba)),
      ROW(BAD, miopenCompileFusionPlan(h, nullptr)),
      ROW(BAD, miopenCompileFusionPlan(o.dead_handle, o.cba)),
      ROW(BAD, miopenCompileFusionPlan(h, o.dead_plan)),
      ROW(BAD, miopenCompileFusionPlan(as_handle, o.cba)),
      ROW(BAD, miopenCompileFusionPlan(h, as_plan)),
      ROW(UNSUPPORTED, miopenCompileFusionPlan(h, o.empty)),
      ROW(NOT_IMPL, miopenCompileFusionPlan(h, o.horizontal)),
      ROW(UNSUPPORTED, miopenCompileFusionPlan(h, o.int32_bias)),
      ROW(BAD, miopenFusionPlanGetOp(nullptr, 0, &o.op)),
      ROW(BAD, miopenFusionPlanGetOp(o.cba, 0, nullptr)),
      ROW(BAD, miopenFusionPlanGetOp(o.cba, -1, &o.op)),
      ROW(BAD, miopenFusionPlanGetOp(o.cba, 3, &o.op)),
      ROW(BAD, miopenFusionPlanGetOp(o.cba, INT_MAX, &o.op)),
      ROW(BAD, miopenFusionPlanGetOp(o.empty, 0, &o.op)),
      ROW(BAD, miopenFusionPlanGetOp(o.dead_plan, 0, &o.op)),
      ROW(BAD, miopenFusionPlanGetOp(as_plan, 0, &o.op)),
      ROW(BAD, miopenFusionPlanGetWorkSpaceSize(nullptr, o.cba, &o.sz, miopenConvolutionFwdAlgoDirect)),
      ROW(BAD, miopenFusionPlanGetWorkSpaceSize(h, nullptr, &o.sz, miopenConvolutionFwdAlgoDirect)),
      ROW(BAD, miopenFusionPlanGetWorkSpaceSize(h, o.cba, nullptr, miopenConvolutionFwdAlgoDirect)),
      ROW(BAD, miopenFusionPlanGetWorkSpaceSize(o.dead_handle, o.cba, &o.sz, miopenConvolutionFwdAlgoDirect)),
      ROW(BAD, miopenFusionPlanGetWorkSpaceSize(h, as_plan, &o.sz, miopenConvolutionFwdAlgoDirect)),
      ROW(BAD, miopenFusionPlanConvolutionGetAlgo(nullptr, 2, &o.i, o.algos)),
      ROW(BAD, miopenFusionPlanConvolutionGetAlgo(o.cba, 2, nullptr, o.algos)),
      ROW(BAD, miopenFusionPlanConvolutionGetAlgo(o.cba, -1, &o.i, o.algos)),
      ROW(BAD, miopenFusionPlanConvolutionGetAlgo(o.cba, 2, &o.i, nullptr)),
      ROW(BAD, miopenFusionPlanConvolutionGetAlgo(o.dead_plan, 2, &o.i, o.algos)),
      ROW(BAD, miopenFusionPlanConvolutionSetAlgo(nullptr, miopenConvolutionFwdAlgoDirect)),
      ROW(BAD, miopenFusionPlanConvolutionSetAlgo(o.cba, algo(4))),
      ROW(BAD, miopenFusionPlanConvolutionSetAlgo(o.cba, algo(-1))),
      ROW(BAD, miopenFusionPlanConvolutionSetAlgo(o.cba, algo(6))),
      ROW(BAD, miopenFusionPlanConvolutionSetAlgo(o.dead_plan, miopenConvolutionFwdAlgoDirect)),

      // Creating ops: null and dead objects, then what cannot follow the current tensor.
      ROW(BAD, miopenCreateOpConvForward(nullptr, &o.op, o.conv, o.w)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, nullptr, o.conv, o.w)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, nullptr, o.w)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.conv, nullptr)),
      ROW(BAD, miopenCreateOpConvForward(o.dead_plan, &o.op, o.conv, o.w)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.dead_conv, o.w)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.conv, o.dead_tensor)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, as_conv, o.w)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.conv, as_tensor)),
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.conv, o.y)),        // channel mismatch
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.conv, o.xi)),       // x/w type mismatch
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.conv, o.x5)),       // 5-D weights, 2-D conv
      ROW(BAD, miopenCreateOpConvForward(o.empty, &o.op, o.conv3d, o.w)),      // 3-D conv on 4-D data
      ROW(BAD, miopenCreateOpActivationForward(nullptr, &o.op, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpActivationForward(o.empty, nullptr, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpActivationForward(o.empty, &o.op, amode(10))),
      ROW(BAD, miopenCreateOpActivationForward(o.empty, &o.op, amode(-1))),
      ROW(BAD, miopenCreateOpActivationForward(o.dead_plan, &o.op, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpActivationForward(as_plan, &o.op, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpActivationBackward(nullptr, &o.op, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpActivationBackward(o.empty, nullptr, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpActivationBackward(o.empty, &o.op, amode(11))),
      ROW(BAD, miopenCreateOpActivationBackward(o.empty, &o.op, amode(INT_MIN))),
      ROW(BAD, miopenCreateOpActivationBackward(o.dead_plan, &o.op, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpActivationBackward(as_plan, &o.op, miopenActivationRELU)),
      ROW(BAD, miopenCreateOpBiasForward(nullptr, &o.op, o.b)),
      ROW(BAD, miopenCreateOpBiasForward(o.cba, nullptr, o.b)),
      ROW(BAD, miopenCreateOpBiasForward(o.cba, &o.op, nullptr)),
      ROW(BAD, miopenCreateOpBiasForward(o.cba, &o.op, o.dead_tensor)),
      ROW(BAD, miopenCreateOpBiasForward(o.cba, &o.op, as_tensor)),
      ROW(BAD, miopenCreateOpBiasForward(o.cba, &o.op, o.bn4)),   // K = 4, tensor has 8 channels
      ROW(BAD, miopenCreateOpBiasForward(o.empty, &o.op, o.bi)),  // int32 bias for fp32 data
      ROW(BAD, miopenCreateOpBiasForward(o.empty, &o.op, o.x)),   // not 1xCx1x1
      ROW(BAD, miopenCreateOpBiasForward(o.empty, &o.op, o.unset)),
      ROW(BAD, miopenCreateOpBiasForward(o.dead_plan, &o.op, o.b)),
      ROW(BAD, miopenCreateOpBatchNormInference(nullptr, &o.op, miopenBNSpatial, o.bn4)),
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, nullptr, miopenBNSpatial, o.bn4)),
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, &o.op, miopenBNSpatial, nullptr)),
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, &o.op, bnmode(2), o.bn4)),
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, &o.op, bnmode(-1), o.bn4)),
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, &o.op, miopenBNSpatial, o.b)),        // 8 != 4 channels
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, &o.op, miopenBNPerActivation, o.bn4)),  // needs 1x4x8x8
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, &o.op, miopenBNSpatial, o.bi)),       // not fp32
      ROW(BAD, miopenCreateOpBatchNormInference(o.empty, &o.op, miopenBNSpatial, o.dead_tensor)),
      ROW(BAD, miopenCreateOpBatchNormInference(o.dead_plan, &o.op, miopenBNSpatial, o.bn4)),
      ROW(BAD, miopenCreateOpBatchNormForward(nullptr, &o.op, miopenBNSpatial, true)),
      ROW(BAD, miopenCreateOpBatchNormForward(o.empty, nullptr, miopenBNSpatial, true)),
      ROW(BAD, miopenCreateOpBatchNormForward(o.empty, &o.op, bnmode(3), false)),
      ROW(BAD, miopenCreateOpBatchNormForward(o.dead_plan, &o.op, miopenBNSpatial, false)),
      ROW(BAD, miopenCreateOpBatchNormBackward(nullptr, &o.op, miopenBNSpatial)),
      ROW(BAD, miopenCreateOpBatchNormBackward(o.empty, nullptr, miopenBNSpatial)),
      ROW(BAD, miopenCreateOpBatchNormBackward(o.empty, &o.op, bnmode(-5))),
      ROW(BAD, miopenCreateOpBatchNormBackward(o.dead_plan, &o.op, miopenBNPerActivation)),
      ROW(BAD, hipfuseCreateOpResidualAdd(nullptr, &o.op, o.y)),
      ROW(BAD, hipfuseCreateOpResidualAdd(o.cba, nullptr, o.y)),
      ROW(BAD, hipfuseCreateOpResidualAdd(o.cba, &o.op, nullptr)),
      ROW(BAD, hipfuseCreateOpResidualAdd(o.cba, &o.op, o.x)),   // 4 channels, the tensor has 8
      ROW(BAD, hipfuseCreateOpResidualAdd(o.int32_bias, &o.op, o.x)),  // fp32 z on int32 data
      ROW(BAD, hipfuseCreateOpResidualAdd(o.empty, &o.op, o.x5)),
      ROW(BAD, hipfuseCreateOpResidualAdd(o.cba, &o.op, o.dead_tensor)),

      // Operator arguments.
      ROW(BAD, miopenCreateOperatorArgs(nullptr)),
      ROW(BAD, miopenDestroyOperatorArgs(o.dead_args)),
      ROW(BAD, miopenDestroyOperatorArgs(as_args)),
      ROW(BAD, miopenSetOpArgsConvForward(nullptr, o.conv_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsConvForward(o.args, nullptr, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsConvForward(o.dead_args, o.conv_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsConvForward(o.args, o.dead_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsConvForward(o.args, o.bias_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsConvForward(as_args, o.conv_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsConvForward(o.args, as_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsActivForward(nullptr, o.relu_op, nullptr, nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsActivForward(o.args, nullptr, nullptr, nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsActivForward(o.args, o.conv_op, nullptr, nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsActivForward(o.args, o.activ_bwd_op, nullptr, nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsActivForward(o.args, o.dead_op, nullptr, nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsActivBackward(nullptr, o.activ_bwd_op, nullptr, nullptr, dev(1), nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsActivBackward(o.args, nullptr, nullptr, nullptr, dev(1), nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsActivBackward(o.args, o.relu_op, nullptr, nullptr, dev(1), nullptr, 0, 0, 0)),
      ROW(BAD, miopenSetOpArgsBiasForward(nullptr, o.bias_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsBiasForward(o.args, nullptr, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsBiasForward(o.args, o.relu_op, nullptr, nullptr, dev(1))),
      ROW(BAD, miopenSetOpArgsBatchNormInference(nullptr, o.bn_inf_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormInference(o.args, nullptr, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormInference(o.args, o.bn_fwd_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormForward(nullptr, o.bn_fwd_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), dev(5), dev(6), 0.1, 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormForward(o.args, nullptr, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), dev(5), dev(6), 0.1, 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormForward(o.args, o.bn_inf_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), dev(5), dev(6), 0.1, 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormForward(o.args, o.bn_fwd_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), nullptr, dev(6), 0.1, 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormForward(o.args, o.bn_fwd_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), dev(5), nullptr, 0.1, 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormForward(o.args, o.bn_fwd_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), nullptr, nullptr, 0.1, 1e-5)),
      ROW(BAD, miopenSetOpArgsBatchNormBackward(nullptr, o.bn_bwd_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), dev(5), dev(6), dev(7))),
      ROW(BAD, miopenSetOpArgsBatchNormBackward(o.args, nullptr, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), dev(5), dev(6), dev(7))),
      ROW(BAD, miopenSetOpArgsBatchNormBackward(o.args, o.bn_fwd_op, nullptr, nullptr, dev(1), dev(2), dev(3), dev(4), dev(5), dev(6), dev(7))),
      ROW(BAD, hipfuseSetOpArgsResidualAdd(nullptr, o.residual_op, 1.0, dev(1))),
      ROW(BAD, hipfuseSetOpArgsResidualAdd(o.args, nullptr, 1.0, dev(1))),
      ROW(BAD, hipfuseSetOpArgsResidualAdd(o.args, o.bias_op, 1.0, dev(1))),

      // Execution.
      ROW(BAD, miopenExecuteFusionPlan(nullptr, o.cba, o.x, dev(1), o.y, dev(2), o.args)),
      ROW(BAD, miopenExecuteFusionPlan(h, nullptr, o.x, dev(1), o.y, dev(2), o.args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.cba, nullptr, dev(1), o.y, dev(2), o.args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.cba, o.x, dev(1), nullptr, dev(2), o.args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.cba, o.x, dev(1), o.y, dev(2), nullptr)),
      ROW(BAD, miopenExecuteFusionPlan(o.dead_handle, o.cba, o.x, dev(1), o.y, dev(2), o.args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.dead_plan, o.x, dev(1), o.y, dev(2), o.args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.cba, o.x, dev(1), o.y, dev(2), o.dead_args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.cba, as_tensor, dev(1), o.y, dev(2), o.args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.cba, o.x, dev(1), o.y, dev(2), as_args)),
      ROW(BAD, miopenExecuteFusionPlan(h, o.cba, o.x, dev(1), o.y, dev(2), o.args)),  // not compiled
      ROW(BAD, miopenExecuteFusionPlan(h, o.empty, o.x, dev(1), o.x, dev(2), o.args)),  // not compiled

      // The one-shot call.
      ROW(BAD, miopenConvolutionBiasActivationForward(nullptr, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, nullptr, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), nullptr, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), nullptr, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, nullptr, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), nullptr, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), nullptr, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, nullptr, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, nullptr, o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, nullptr, o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, nullptr, o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, nullptr, o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, nullptr)),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.x, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.x, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.bn4, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.dead_act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(h, nullptr, o.x, dev(1), o.y, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),
      ROW(BAD, miopenConvolutionBiasActivationForward(o.dead_handle, nullptr, o.x, dev(1), o.w, dev(2), o.conv, miopenConvolutionFwdAlgoDirect, nullptr, 0, nullptr, o.y, dev(3), o.b, dev(4), o.act, o.y, dev(5))),

      // hipfuse's queries and offline compile.
      ROW(BAD, hipfuseGetFusionPlanInfo(nullptr, &o.info)),
      ROW(BAD, hipfuseGetFusionPlanInfo(o.cba, nullptr)),
      ROW(BAD, hipfuseGetFusionPlanInfo(o.dead_plan, &o.info)),
      ROW(BAD, hipfuseGetKernelCacheStats(nullptr)),
      ROW(BAD, hipfuseGetDeviceAvailable(nullptr, nullptr)),
      ROW(BAD, hipfuseCompileFusionPlanForArch(nullptr, "sm_90")),
      ROW(BAD, hipfuseCompileFusionPlanForArch(o.cba, nullptr)),
      ROW(BAD, hipfuseCompileFusionPlanForArch(o.cba, "sm_")),
      ROW(BAD, hipfuseCompileFusionPlanForArch(o.cba, "volta")),
      ROW(BAD, hipfuseCompileFusionPlanForArch(o.dead_plan, "sm_90")),
      ROW(UNSUPPORTED, hipfuseCompileFusionPlanForArch(o.empty, "sm_90")),
      ROW(UNSUPPORTED, hipfuseCompileFusionPlanForArch(o.int32_bias, "sm_90")),
      ROW(NOT_IMPL, hipfuseCompileFusionPlanForArch(o.horizontal, "sm_90")),
  };
}

std::string function_of(const char* call) {
  const std::string text = call;
  return text.substr(0, text.find('('));
}

}  // namespace

TEST_CASE("every entry point misused: documented status, a reason naming the function, nothing changed") {
  QuietLog quiet;
  World world;
  const auto table = rows(world);
  CHECK(table.size() >= 300);
  std::set<std::string> functions;
  for (const Row& row : table) {
    CAPTURE(row.call);
    const int cba_ops = world.cba.op_count(), bn_ops = world.bnp.op_count(), empty_ops = world.empty.op_count();
    const miopenStatus_t status = row.run();
    const std::string message = last_error();
    CAPTURE(message);
    CHECK(name(status) == name(row.expected));
    CHECK(message.rfind(function_of(row.call) + ": ", 0) == 0);
    CHECK(message.size() > function_of(row.call).size() + 10);
    CHECK(world.cba.op_count() == cba_ops);
    CHECK(world.bnp.op_count() == bn_ops);
    CHECK(world.empty.op_count() == empty_ops);
    functions.insert(function_of(row.call));
  }
  MESSAGE(table.size(), " misuse checks over ", functions.size(), " entry points");
  CHECK(functions.size() >= 65);
}
