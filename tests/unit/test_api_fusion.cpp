// Fusion plans through the C API without a GPU: building plans, op handles, validation at
// creation, compile errors, offline compile, operator arguments, and every check
// miopenExecuteFusionPlan makes before it launches.
#include "test_api_support.h"

#include "api/execute.h"
#include "common/error.h"

using namespace api_test;

namespace {

const hipfuse::FusionPlan& internal(miopenFusionPlanDescriptor_t plan) {
  return *static_cast<hipfuse::api::PlanObject*>(plan)->plan;
}

// x 2x4x8x8 fp32 -> conv 3x3 pad 1 to 8 channels -> bias -> relu.
struct CbaPlan {
  Tensor x{miopenFloat, 2, 4, 8, 8};
  Tensor w{miopenFloat, 8, 4, 3, 3};
  Tensor b{miopenFloat, 1, 8, 1, 1};
  Tensor y{miopenFloat, 2, 8, 8, 8};
  Conv conv{1, 1, 1};
  Plan plan{x};
  miopenFusionOpDescriptor_t conv_op = nullptr, bias_op = nullptr, relu_op = nullptr;
  CbaPlan() {
    REQUIRE(miopenCreateOpConvForward(plan, &conv_op, conv, w) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpBiasForward(plan, &bias_op, b) == miopenStatusSuccess);
    REQUIRE(miopenCreateOpActivationForward(plan, &relu_op, miopenActivationRELU) == miopenStatusSuccess);
  }
};

void* fake_device_pointer(std::uintptr_t n) { return reinterpret_cast<void*>(0x10000 * n); }

}  // namespace

TEST_CASE("ops are appended in order; GetOp returns them") {
  QuietLog quiet;
  CbaPlan p;
  CHECK(p.plan.op_count() == 3);
  miopenFusionOpDescriptor_t op = nullptr;
  CHECK_OK(miopenFusionPlanGetOp(p.plan, 0, &op));
  CHECK(op == p.conv_op);
  CHECK_OK(miopenFusionPlanGetOp(p.plan, 2, &op));
  CHECK(op == p.relu_op);
  op = nullptr;
  CHECK_STATUS(miopenFusionPlanGetOp(p.plan, 3, &op), miopenStatusBadParm);
  CHECK(last_error().find("out of range") != std::string::npos);
  CHECK(op == nullptr);
  CHECK_STATUS(miopenFusionPlanGetOp(p.plan, -1, &op), miopenStatusBadParm);
  CHECK_STATUS(miopenFusionPlanGetOp(p.plan, 0, nullptr), miopenStatusBadParm);
}

TEST_CASE("the plan's output descriptor follows its ops") {
  QuietLog quiet;
  CbaPlan p;
  const auto& plan = internal(p.plan);
  CHECK(plan.input() == static_cast<hipfuse::api::TensorObject*>(p.x.d)->desc);
  CHECK(plan.output() == static_cast<hipfuse::api::TensorObject*>(p.y.d)->desc);
  // Strided convolution: spatial size halves; BN inference keeps it.
  Tensor x(miopenHalf, miopenTensorNHWC, {1, 16, 10, 10});
  Tensor w(miopenHalf, miopenTensorNHWC, {32, 16, 3, 3});
  Conv conv(1, 2, 1);
  Plan plan2(x);
  miopenFusionOpDescriptor_t op;
  REQUIRE(miopenCreateOpConvForward(plan2, &op, conv, w) == miopenStatusSuccess);
  Tensor bn;
  REQUIRE(miopenDeriveBNTensorDescriptor(bn, x, miopenBNSpatial) == miopenStatusSuccess);
  CHECK_STATUS(miopenCreateOpBatchNormInference(plan2, &op, miopenBNSpatial, bn), miopenStatusBadParm);  // C 16 != 32
  Tensor y(miopenHalf, miopenTensorNHWC, {1, 32, 5, 5});
  REQUIRE(miopenDeriveBNTensorDescriptor(bn, y, miopenBNSpatial) == miopenStatusSuccess);
  CHECK_OK(miopenCreateOpBatchNormInference(plan2, &op, miopenBNSpatial, bn));
  CHECK(internal(plan2).output() == static_cast<hipfuse::api::TensorObject*>(y.d)->desc);
}

TEST_CASE("a failed op creation leaves the plan and the output untouched") {
  QuietLog quiet;
  CbaPlan p;
  Tensor wrong_bias(miopenFloat, 1, 4, 1, 1);
  miopenFusionOpDescriptor_t op = reinterpret_cast<miopenFusionOpDescriptor_t>(0x1);
  CHECK_STATUS(miopenCreateOpBiasForward(p.plan, &op, wrong_bias), miopenStatusBadParm);
  CHECK(last_error().find("bias descriptor must be 1x8x1x1") != std::string::npos);
  CHECK(op == reinterpret_cast<miopenFusionOpDescriptor_t>(0x1));
  CHECK(p.plan.op_count() == 3);
}

TEST_CASE("plan info: key, op count, and no compile yet") {
  CbaPlan p;
  hipfuseFusionPlanInfo info{};
  CHECK_OK(hipfuseGetFusionPlanInfo(p.plan, &info));
  CHECK(info.compiled == 0);
  CHECK(info.opCount == 3);
  CHECK(std::string(info.key) == internal(p.plan).key());
  CHECK(std::string(info.key).find("activ_fwd(relu)") != std::string::npos);
  CHECK(std::string(info.solver).empty());
  CHECK(info.kernelLaunches == 0);
}

TEST_CASE("compile errors: unsupported with reasons, empty, horizontal; the plan stays unexecutable") {
  QuietLog quiet;
  FakeHandle h;
  Tensor x(miopenInt32, 1, 4, 8, 8);
  Tensor b(miopenInt32, 1, 4, 1, 1);
  {
    Plan plan(x);
    CHECK_STATUS(miopenCompileFusionPlan(h, plan), miopenStatusUnsupportedOp);
    CHECK(last_error().find("no ops") != std::string::npos);
    miopenFusionOpDescriptor_t op;
    REQUIRE(miopenCreateOpBiasForward(plan, &op, b) == miopenStatusSuccess);
    CHECK_STATUS(miopenCompileFusionPlan(h, plan), miopenStatusUnsupportedOp);
    CHECK(last_error().find("no fused kernel supports this plan") != std::string::npos);
    CHECK_STATUS(hipfuseCompileFusionPlanForArch(plan, "sm_90"), miopenStatusUnsupportedOp);
    CHECK(last_error().find("no fused kernel supports this plan") != std::string::npos);
    hipfuseFusionPlanInfo info{};
    CHECK_OK(hipfuseGetFusionPlanInfo(plan, &info));
    CHECK(info.compiled == 0);
    Args args;
    Tensor y(miopenInt32, 1, 4, 8, 8);
    CHECK_STATUS(miopenExecuteFusionPlan(h, plan, x, fake_device_pointer(1), y, fake_device_pointer(2), args),
                 miopenStatusBadParm);
    CHECK(last_error().find("not compiled") != std::string::npos);
  }
  {
    Plan plan(x, miopenHorizontalFusion);
    miopenFusionOpDescriptor_t op;
    REQUIRE(miopenCreateOpActivationForward(plan, &op, miopenActivationRELU) == miopenStatusSuccess);
    CHECK_STATUS(miopenCompileFusionPlan(h, plan), miopenStatusNotImplemented);
    CHECK(last_error().find("horizontal") != std::string::npos);
    CHECK_STATUS(hipfuseCompileFusionPlanForArch(plan, "sm_90"), miopenStatusNotImplemented);
  }
}

TEST_CASE("offline compile checks the architecture") {
  QuietLog quiet;
  CbaPlan p;
  CHECK_STATUS(hipfuseCompileFusionPlanForArch(p.plan, nullptr), miopenStatusBadParm);
  CHECK_STATUS(hipfuseCompileFusionPlanForArch(p.plan, "gfx_nonsense"), miopenStatusBadParm);
  CHECK(last_error().find("unknown architecture 'gfx_nonsense'") != std::string::npos);
  CHECK_STATUS(hipfuseCompileFusionPlanForArch(p.plan, ""), miopenStatusBadParm);
}

TEST_CASE("support check: the applicable solver without compiling, or the reasons") {
  QuietLog quiet;
  CbaPlan p;
  const char* solver = nullptr;
  CHECK_OK(hipfuseCheckFusionPlanForArch(p.plan, "sm_90", &solver));
  REQUIRE(solver != nullptr);
  CHECK_FALSE(std::string(solver).empty());
  hipfuseFusionPlanInfo info{};
  CHECK_OK(hipfuseGetFusionPlanInfo(p.plan, &info));
  CHECK(info.compiled == 0);
  CHECK(std::string(info.solver).empty());  // nothing was compiled

  CHECK_STATUS(hipfuseCheckFusionPlanForArch(p.plan, "sm_90", nullptr), miopenStatusBadParm);
  CHECK_STATUS(hipfuseCheckFusionPlanForArch(p.plan, nullptr, &solver), miopenStatusBadParm);
  CHECK_STATUS(hipfuseCheckFusionPlanForArch(p.plan, "gfx_nonsense", &solver), miopenStatusBadParm);
  CHECK_STATUS(hipfuseCheckFusionPlanForArch(nullptr, "sm_90", &solver), miopenStatusBadParm);

  Tensor x(miopenInt32, 1, 4, 8, 8);
  Tensor b(miopenInt32, 1, 4, 1, 1);
  Plan unsupported(x);
  miopenFusionOpDescriptor_t op;
  REQUIRE(miopenCreateOpBiasForward(unsupported, &op, b) == miopenStatusSuccess);
  solver = "unchanged";
  CHECK_STATUS(hipfuseCheckFusionPlanForArch(unsupported, "sm_90", &solver), miopenStatusUnsupportedOp);
  CHECK(last_error().find("no fused kernel supports this plan") != std::string::npos);
  CHECK(std::string(solver) == "unchanged");

  Plan horizontal(p.x, miopenHorizontalFusion);
  REQUIRE(miopenCreateOpActivationForward(horizontal, &op, miopenActivationRELU) == miopenStatusSuccess);
  CHECK_STATUS(hipfuseCheckFusionPlanForArch(horizontal, "sm_90", &solver), miopenStatusNotImplemented);
}

TEST_CASE("workspace is zero; algorithms are MIOpen's fixed list and have no effect") {
  QuietLog quiet;
  FakeHandle h;
  CbaPlan p;
  size_t ws = 99;
  CHECK_OK(miopenFusionPlanGetWorkSpaceSize(h, p.plan, &ws, miopenConvolutionFwdAlgoDirect));
  CHECK(ws == 0);
  int count = -1;
  miopenConvFwdAlgorithm_t algos[4] = {};
  CHECK_OK(miopenFusionPlanConvolutionGetAlgo(p.plan, 4, &count, algos));
  CHECK(count == 2);
  CHECK(algos[0] == miopenConvolutionFwdAlgoDirect);
  CHECK(algos[1] == miopenConvolutionFwdAlgoWinograd);
  CHECK_OK(miopenFusionPlanConvolutionGetAlgo(p.plan, 1, &count, algos));
  CHECK(count == 1);
  CHECK_OK(miopenFusionPlanConvolutionGetAlgo(p.plan, 0, &count, nullptr));
  CHECK(count == 0);
  for (auto algo : {miopenConvolutionFwdAlgoGEMM, miopenConvolutionFwdAlgoDirect, miopenConvolutionFwdAlgoFFT,
                    miopenConvolutionFwdAlgoWinograd, miopenConvolutionFwdAlgoImplicitGEMM}) {
    CHECK_OK(miopenFusionPlanConvolutionSetAlgo(p.plan, algo));
  }
  CHECK_STATUS(miopenFusionPlanConvolutionSetAlgo(p.plan, enum_value<miopenConvFwdAlgorithm_t>(4)), miopenStatusBadParm);
}

TEST_CASE("operator args: slots by op position, overwritten, re-bindable, wrong kinds rejected") {
  QuietLog quiet;
  CbaPlan p;
  Args args;
  const double alpha = 1.0, beta = 0.0;  // legacy callers pass double*: never dereferenced
  CHECK_OK(miopenSetOpArgsConvForward(args, p.conv_op, &alpha, &beta, fake_device_pointer(1)));
  CHECK_OK(miopenSetOpArgsBiasForward(args, p.bias_op, &alpha, &beta, fake_device_pointer(2)));
  CHECK_OK(miopenSetOpArgsActivForward(args, p.relu_op, nullptr, nullptr, 0.1, 0.2, 0.3));
  auto& slots = static_cast<hipfuse::api::ArgsObject*>(args.d)->args.slots;
  REQUIRE(slots.size() == 3);
  CHECK(std::get<hipfuse::ConvForwardArgs>(slots[0]).weights == fake_device_pointer(1));
  CHECK(std::get<hipfuse::ConvForwardArgs>(slots[0]).alpha == 1.0);
  CHECK(std::get<hipfuse::BiasForwardArgs>(slots[1]).bias == fake_device_pointer(2));
  CHECK(std::get<hipfuse::ActivationForwardArgs>(slots[2]).gamma == 0.3);
  hipfuse::api::check_args(internal(p.plan), static_cast<hipfuse::api::ArgsObject*>(args.d)->args);
  // Re-binding overwrites.
  CHECK_OK(miopenSetOpArgsConvForward(args, p.conv_op, nullptr, nullptr, fake_device_pointer(7)));
  CHECK(std::get<hipfuse::ConvForwardArgs>(slots[0]).weights == fake_device_pointer(7));
  // Wrong kinds: BadParm naming both kinds (MIOpen: UnknownError from a bad_cast).
  CHECK_STATUS(miopenSetOpArgsBiasForward(args, p.conv_op, nullptr, nullptr, fake_device_pointer(2)), miopenStatusBadParm);
  CHECK(last_error().find("a ConvForward op") != std::string::npos);
  CHECK(last_error().find("needs a BiasForward op") != std::string::npos);
  CHECK(std::get<hipfuse::ConvForwardArgs>(slots[0]).weights == fake_device_pointer(7));  // untouched
}

TEST_CASE("BN forward training: running pointers required only when asked for") {
  QuietLog quiet;
  Tensor x(miopenFloat, 2, 4, 8, 8);
  Plan plan(x);
  miopenFusionOpDescriptor_t with_running, without_running;
  REQUIRE(miopenCreateOpBatchNormForward(plan, &with_running, miopenBNSpatial, true) == miopenStatusSuccess);
  REQUIRE(miopenCreateOpBatchNormForward(plan, &without_running, miopenBNSpatial, false) == miopenStatusSuccess);
  Args args;
  void* p = fake_device_pointer(1);
  CHECK_STATUS(miopenSetOpArgsBatchNormForward(args, with_running, nullptr, nullptr, p, p, p, p, nullptr, p, 0.1, 1e-5),
               miopenStatusBadParm);
  CHECK(last_error().find("runningMeanVariance") != std::string::npos);
  CHECK_STATUS(miopenSetOpArgsBatchNormForward(args, with_running, nullptr, nullptr, p, p, p, p, p, nullptr, 0.1, 1e-5),
               miopenStatusBadParm);
  CHECK_OK(miopenSetOpArgsBatchNormForward(args, with_running, nullptr, nullptr, p, p, p, p, p, p, 0.1, 1e-5));
  CHECK_OK(miopenSetOpArgsBatchNormForward(args, without_running, nullptr, nullptr, p, p, p, p, nullptr, nullptr, 0.1, 1e-5));
  hipfuse::api::check_args(internal(plan), static_cast<hipfuse::api::ArgsObject*>(args.d)->args);
}

TEST_CASE("Execute's argument checks name the op and what is missing") {
  CbaPlan p;
  const auto& plan = internal(p.plan);
  const auto failure = [&](const hipfuse::OperatorArgs& a) -> std::string {
    try {
      hipfuse::api::check_args(plan, a);
    } catch (const hipfuse::Error& e) {
      CHECK(e.status() == hipfuse::Status::bad_parm);
      return e.what();
    }
    return "";
  };
  hipfuse::OperatorArgs args;
  CHECK(failure(args).find("op 0 (ConvForward) has no arguments") != std::string::npos);
  args.slots = {hipfuse::ConvForwardArgs{fake_device_pointer(1)}};
  CHECK(failure(args).find("op 1 (BiasForward) has no arguments") != std::string::npos);
  args.slots.push_back(std::monostate{});
  CHECK(failure(args).find("op 1 (BiasForward) has no arguments") != std::string::npos);
  args.slots[1] = hipfuse::ActivationForwardArgs{};
  CHECK(failure(args).find("op 1 is a BiasForward op but its arguments slot holds ActivationForward") != std::string::npos);
  args.slots[1] = hipfuse::BiasForwardArgs{nullptr};
  args.slots.push_back(hipfuse::ActivationForwardArgs{});
  CHECK(failure(args).find("op 1 (BiasForward): bias is null") != std::string::npos);
  args.slots[1] = hipfuse::BiasForwardArgs{fake_device_pointer(2)};
  args.slots[0] = hipfuse::ConvForwardArgs{nullptr};
  CHECK(failure(args).find("op 0 (ConvForward): w is null") != std::string::npos);
  args.slots[0] = hipfuse::ConvForwardArgs{fake_device_pointer(1)};
  CHECK(failure(args).empty());
  args.slots.push_back(hipfuse::BiasForwardArgs{});  // extra slots are ignored
  CHECK(failure(args).empty());
}

TEST_CASE("an op handle dies with its plan") {
  QuietLog quiet;
  Tensor x(miopenFloat, 1, 4, 8, 8);
  miopenFusionPlanDescriptor_t plan = nullptr;
  REQUIRE(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x) == miopenStatusSuccess);
  miopenFusionOpDescriptor_t op;
  REQUIRE(miopenCreateOpActivationForward(plan, &op, miopenActivationRELU) == miopenStatusSuccess);
  CHECK_OK(miopenDestroyFusionPlan(plan));
  Args args;
  CHECK_STATUS(miopenSetOpArgsActivForward(args, op, nullptr, nullptr, 0, 0, 0), miopenStatusBadParm);
  CHECK(last_error().find("already destroyed") != std::string::npos);
  CHECK_STATUS(miopenFusionPlanGetOp(plan, 0, &op), miopenStatusBadParm);
}

TEST_CASE("the plan copies its descriptors: destroying them later changes nothing") {
  miopenTensorDescriptor_t x = nullptr;
  REQUIRE(miopenCreateTensorDescriptor(&x) == miopenStatusSuccess);
  REQUIRE(miopenSet4dTensorDescriptor(x, miopenFloat, 1, 4, 8, 8) == miopenStatusSuccess);
  Plan plan(x);
  CHECK_OK(miopenDestroyTensorDescriptor(x));
  CHECK(internal(plan).input().lengths == std::vector<std::int64_t>{1, 4, 8, 8});
}

TEST_CASE("adding an op makes a compiled plan uncompiled") {
  // Compiling needs a solver and a GPU; the plan model's rule is checked directly.
  CbaPlan p;
  auto& plan = *static_cast<hipfuse::api::PlanObject*>(p.plan.d)->plan;
  CHECK_FALSE(plan.compiled());
  miopenFusionOpDescriptor_t op;
  CHECK_OK(miopenCreateOpActivationForward(p.plan, &op, miopenActivationRELU));
  CHECK_FALSE(plan.compiled());
  CHECK(plan.compile_info().solver.empty());
}

TEST_CASE("execute checks before launching: descriptors, pointers, args") {
  QuietLog quiet;
  FakeHandle h;
  CbaPlan p;
  Args args;
  void* x = fake_device_pointer(1);
  void* y = fake_device_pointer(2);
  CHECK_STATUS(miopenExecuteFusionPlan(h, p.plan, p.x, x, p.y, y, args), miopenStatusBadParm);
  CHECK(last_error().find("not compiled") != std::string::npos);
  CHECK_STATUS(miopenExecuteFusionPlan(nullptr, p.plan, p.x, x, p.y, y, args), miopenStatusBadParm);
  CHECK_STATUS(miopenExecuteFusionPlan(h, nullptr, p.x, x, p.y, y, args), miopenStatusBadParm);
  CHECK_STATUS(miopenExecuteFusionPlan(h, p.plan, nullptr, x, p.y, y, args), miopenStatusBadParm);
  CHECK_STATUS(miopenExecuteFusionPlan(h, p.plan, p.x, x, nullptr, y, args), miopenStatusBadParm);
  CHECK_STATUS(miopenExecuteFusionPlan(h, p.plan, p.x, x, p.y, y, nullptr), miopenStatusBadParm);
}

TEST_CASE("the one-shot call checks descriptors before compiling") {
  QuietLog quiet;
  FakeHandle h;
  Tensor x(miopenFloat, 2, 4, 8, 8), w(miopenFloat, 8, 4, 3, 3), b(miopenFloat, 1, 8, 1, 1);
  Tensor z(miopenFloat, 2, 8, 8, 8), y(miopenFloat, 2, 8, 8, 8), bad(miopenFloat, 2, 8, 8, 7);
  Conv conv;
  Activation act;
  void* d = fake_device_pointer(3);
  const float one = 1.0f;
  const auto call = [&](miopenTensorDescriptor_t zd, miopenTensorDescriptor_t bd, miopenTensorDescriptor_t yd,
                        void* yp, miopenTensorDescriptor_t wd) {
    return miopenConvolutionBiasActivationForward(h, &one, x, d, wd, d, conv, miopenConvolutionFwdAlgoDirect, nullptr,
                                                  0, &one, zd, d, bd, d, act, yd, yp);
  };
  CHECK_STATUS(call(z, b, bad, d, w), miopenStatusBadParm);
  CHECK(last_error().find("yDesc") != std::string::npos);
  CHECK_STATUS(call(bad, b, y, d, w), miopenStatusBadParm);
  CHECK(last_error().find("residual z descriptor must equal") != std::string::npos);
  CHECK_STATUS(call(z, x, y, d, w), miopenStatusBadParm);
  CHECK(last_error().find("bias descriptor") != std::string::npos);
  CHECK_STATUS(call(z, b, y, nullptr, w), miopenStatusBadParm);
  CHECK(last_error().find("y is null") != std::string::npos);
  Tensor w_bad(miopenFloat, 8, 3, 3, 3);
  CHECK_STATUS(call(z, b, y, d, w_bad), miopenStatusBadParm);
  CHECK(last_error().find("Channels do not match") != std::string::npos);
  CHECK(h.object->one_shot_plans.empty());
}
