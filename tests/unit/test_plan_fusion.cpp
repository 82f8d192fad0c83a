// FusionPlan: validation as ops are added, output propagation, the canonical key, and
// compile's errors (horizontal, empty, unsupported) without a GPU.
#include <doctest/doctest.h>

#include "common/error.h"
#include "plan/fusion_plan.h"
#include "solvers/solver.h"

#include <memory>
#include <set>

using namespace hipfuse;

namespace {

TensorDesc nchw(std::vector<std::int64_t> lengths, DataType type = DataType::float32) {
  return TensorDesc::packed(type, std::move(lengths), lengths.size() == 5 ? Layout::ncdhw : Layout::nchw);
}

ConvForwardOp conv3x3(std::int64_t k, std::int64_t c, DataType type = DataType::float32, int stride = 1) {
  ConvForwardOp op;
  op.conv.pads = {1, 1};
  op.conv.strides = {stride, stride};
  op.weights = nchw({k, c, 3, 3}, type);
  return op;
}

template <typename Fn>
std::pair<Status, std::string> error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return {e.status(), e.what()};
  }
  return {Status::success, ""};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Target offline_sm90() {
  Target t;
  t.arch = "sm_90";
  return t;
}

}  // namespace

TEST_CASE("op outputs: convolution changes channels and size, the rest pass the shape through") {
  FusionPlan plan(FusionDirection::vertical, nchw({2, 3, 16, 16}));
  CHECK(plan.output() == plan.input());
  plan.add(conv3x3(8, 3, DataType::float32, 2));
  CHECK(plan.output() == nchw({2, 8, 8, 8}));
  plan.add(BiasForwardOp{nchw({1, 8, 1, 1})});
  plan.add(BatchNormInferenceOp{BatchNormMode::spatial, nchw({1, 8, 1, 1})});
  plan.add(ActivationForwardOp{ActivationMode::relu});
  plan.add(ResidualAddOp{nchw({2, 8, 8, 8})});
  CHECK(plan.op_count() == 5);
  for (int i = 1; i < plan.op_count(); ++i) {
    CAPTURE(i);
    CHECK(plan.ops()[static_cast<std::size_t>(i)]->input == nchw({2, 8, 8, 8}));
    CHECK(plan.ops()[static_cast<std::size_t>(i)]->output == nchw({2, 8, 8, 8}));
    CHECK(plan.ops()[static_cast<std::size_t>(i)]->index == i);
    CHECK(plan.ops()[static_cast<std::size_t>(i)]->plan == &plan);
  }
  CHECK(plan.ops()[0]->input == nchw({2, 3, 16, 16}));
  CHECK(plan.output() == nchw({2, 8, 8, 8}));
}

TEST_CASE("two convolutions chain their shapes") {
  FusionPlan plan(FusionDirection::vertical, nchw({1, 3, 8, 8}));
  plan.add(conv3x3(4, 3));
  plan.add(conv3x3(6, 4, DataType::float32, 2));
  CHECK(plan.output() == nchw({1, 6, 4, 4}));
}

TEST_CASE("the plan input must be a 4-D or 5-D tensor") {
  CHECK(error_of([] { FusionPlan(FusionDirection::vertical, TensorDesc{}); }).first == Status::bad_parm);
  CHECK(error_of([] { FusionPlan(FusionDirection::vertical, nchw({2, 3})); }).first == Status::bad_parm);
  CHECK(error_of([] { FusionPlan(FusionDirection::vertical, nchw({1, 2, 3, 4, 5, 6})); }).first == Status::bad_parm);
  CHECK(error_of([] { FusionPlan(static_cast<FusionDirection>(2), nchw({1, 2, 3, 4})); }).first == Status::bad_parm);
  CHECK(error_of([] { FusionPlan(FusionDirection::vertical, nchw({1, 2, 3, 4, 5})); }).first == Status::success);
}

TEST_CASE("ops that cannot follow are rejected with the reason, leaving the plan unchanged") {
  FusionPlan plan(FusionDirection::vertical, nchw({2, 4, 8, 8}));
  const auto expect = [&](auto op, const char* reason) {
    auto [status, message] = error_of([&] { plan.add(op); });
    CAPTURE(message);
    CHECK(status == Status::bad_parm);
    CHECK(contains(message, reason));
    CHECK(plan.op_count() == 0);
  };
  expect(conv3x3(8, 3), "Channels do not match");
  expect(conv3x3(8, 4, DataType::half), "types differ");
  expect(BiasForwardOp{nchw({1, 8, 1, 1})}, "bias descriptor must be 1x4x1x1");
  expect(BiasForwardOp{nchw({2, 4, 1, 1})}, "bias descriptor must be");
  expect(BiasForwardOp{nchw({1, 4, 8, 8})}, "bias descriptor must be");
  expect(BiasForwardOp{nchw({1, 4, 1, 1}, DataType::half)}, "bias type must equal the data type fp32");
  expect(BiasForwardOp{TensorDesc::packed(DataType::float32, {1, 4, 2, 1}, Layout::nhwc)}, "bias descriptor");
  expect(ActivationForwardOp{static_cast<ActivationMode>(10)}, "invalid activation mode 10");
  expect(ActivationBackwardOp{static_cast<ActivationMode>(-1)}, "invalid activation mode -1");
  expect(BatchNormInferenceOp{static_cast<BatchNormMode>(2), nchw({1, 4, 1, 1})}, "invalid batch-norm mode 2");
  expect(BatchNormInferenceOp{BatchNormMode::spatial, nchw({1, 4, 8, 8})}, "must be fp32 1x4x1x1");
  expect(BatchNormInferenceOp{BatchNormMode::per_activation, nchw({1, 4, 1, 1})}, "must be fp32 1x4x8x8");
  expect(BatchNormInferenceOp{BatchNormMode::spatial, nchw({1, 4, 1, 1}, DataType::half)},
         "batch-norm parameters must be fp32");
  expect(BatchNormInferenceOp{BatchNormMode::per_activation,
                              TensorDesc::packed(DataType::float32, {1, 4, 8, 8}, Layout::nhwc)},
         "must be fp32 1x4x8x8");
  expect(BatchNormForwardTrainingOp{static_cast<BatchNormMode>(7), true}, "invalid batch-norm mode 7");
  expect(BatchNormBackwardOp{static_cast<BatchNormMode>(-3)}, "invalid batch-norm mode -3");
  expect(ResidualAddOp{nchw({2, 4, 8, 9})}, "residual z descriptor must equal");
  expect(ResidualAddOp{nchw({2, 4, 8, 8}, DataType::half)}, "residual z descriptor must equal");
  expect(ResidualAddOp{TensorDesc::packed(DataType::float32, {2, 4, 8, 8}, Layout::nhwc)},
         "residual z descriptor must equal");
}

TEST_CASE("accepted parameter descriptors: fp32 BN params for half data, 5-D shapes, int8 bias") {
  FusionPlan fp16(FusionDirection::vertical, nchw({2, 4, 8, 8}, DataType::half));
  fp16.add(BatchNormInferenceOp{BatchNormMode::spatial, nchw({1, 4, 1, 1})});
  fp16.add(BiasForwardOp{nchw({1, 4, 1, 1}, DataType::half)});
  fp16.add(BiasForwardOp{nchw({1, 4}, DataType::half)});  // any rank, ones but C
  CHECK_THROWS_AS(fp16.add(BiasForwardOp{nchw({1, 4})}), Error);  // fp32 bias for fp16 data
  FusionPlan five(FusionDirection::vertical, nchw({2, 4, 3, 8, 8}, DataType::bfloat16));
  five.add(BatchNormInferenceOp{BatchNormMode::per_activation, nchw({1, 4, 3, 8, 8})});
  five.add(BatchNormInferenceOp{BatchNormMode::spatial, nchw({1, 4, 1, 1, 1})});
  five.add(BiasForwardOp{nchw({1, 4, 1, 1, 1}, DataType::bfloat16)});
  FusionPlan int8(FusionDirection::vertical, nchw({2, 4, 8, 8}, DataType::int8));
  int8.add(BiasForwardOp{nchw({1, 4, 1, 1})});
  CHECK(int8.op_count() == 1);
}

TEST_CASE("the plan key differs for every difference that decides the kernel") {
  const auto base = [] {
    auto p = std::make_unique<FusionPlan>(FusionDirection::vertical, nchw({2, 4, 8, 8}));
    p->add(conv3x3(8, 4));
    p->add(BiasForwardOp{nchw({1, 8, 1, 1})});
    p->add(ActivationForwardOp{ActivationMode::relu});
    return p;
  };
  const std::string reference = base()->key();
  CHECK(reference == base()->key());  // deterministic

  std::vector<std::pair<std::string, std::unique_ptr<FusionPlan>>> variants;
  const auto with = [&](const char* what, TensorDesc input, auto... ops) {
    auto p = std::make_unique<FusionPlan>(FusionDirection::vertical, std::move(input));
    (p->add(ops), ...);
    variants.emplace_back(what, std::move(p));
  };
  const auto conv_with = [](auto change) {
    auto op = conv3x3(8, 4);
    change(op);
    return op;
  };
  const BiasForwardOp bias{nchw({1, 8, 1, 1})};
  const ActivationForwardOp relu{ActivationMode::relu};
  with("batch", nchw({3, 4, 8, 8}), conv3x3(8, 4), bias, relu);
  with("height", nchw({2, 4, 9, 8}), conv3x3(8, 4), bias, relu);
  with("width", nchw({2, 4, 8, 9}), conv3x3(8, 4), bias, relu);
  with("channels", nchw({2, 2, 8, 8}), conv3x3(8, 2), bias, relu);
  with("type", nchw({2, 4, 8, 8}, DataType::half), conv3x3(8, 4, DataType::half), BiasForwardOp{nchw({1, 8, 1, 1}, DataType::half)}, relu);
  with("layout", TensorDesc::packed(DataType::float32, {2, 4, 8, 8}, Layout::nhwc), conv3x3(8, 4), bias, relu);
  with("padded input", [] { auto t = nchw({2, 4, 8, 8}); t.strides = {512, 128, 16, 1}; return t; }(), conv3x3(8, 4), bias, relu);
  with("filters", nchw({2, 4, 8, 8}), conv3x3(16, 4), BiasForwardOp{nchw({1, 16, 1, 1})}, relu);
  with("filter size", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.weights = nchw({8, 4, 5, 5}); }), bias, relu);
  with("weights layout", nchw({2, 4, 8, 8}),
       conv_with([](auto& op) { op.weights = TensorDesc::packed(DataType::float32, {8, 4, 3, 3}, Layout::nhwc); }), bias, relu);
  with("pad", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.conv.pads = {1, 0}; }), bias, relu);
  with("stride", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.conv.strides = {1, 2}; }), bias, relu);
  with("dilation", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.conv.dilations = {2, 1}; }), bias, relu);
  with("groups", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.conv.groups = 2, op.weights = nchw({8, 2, 3, 3}); }), bias, relu);
  with("transpose", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.conv.mode = ConvMode::transpose, op.weights = nchw({4, 8, 3, 3}); }),
       BiasForwardOp{nchw({1, 8, 1, 1})}, relu);
  with("tf32", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.conv.allow_tf32 = true; }), bias, relu);
  with("deterministic", nchw({2, 4, 8, 8}), conv_with([](auto& op) { op.conv.deterministic = true; }), bias, relu);
  with("activation", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, ActivationForwardOp{ActivationMode::leakyrelu});
  with("activation backward", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, ActivationBackwardOp{ActivationMode::relu});
  with("no bias", nchw({2, 4, 8, 8}), conv3x3(8, 4), relu);
  with("order", nchw({2, 4, 8, 8}), conv3x3(8, 4), relu, bias);
  with("extra op", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, relu, relu);
  with("bias layout", nchw({2, 4, 8, 8}), conv3x3(8, 4), BiasForwardOp{TensorDesc::packed(DataType::float32, {1, 8, 1, 1}, Layout::nhwc)}, relu);
  with("bn inference", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, BatchNormInferenceOp{BatchNormMode::spatial, nchw({1, 8, 1, 1})}, relu);
  with("bn mode", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, BatchNormInferenceOp{BatchNormMode::per_activation, nchw({1, 8, 8, 8})}, relu);
  with("bn training", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, BatchNormForwardTrainingOp{BatchNormMode::spatial, false}, relu);
  with("bn running stats", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, BatchNormForwardTrainingOp{BatchNormMode::spatial, true}, relu);
  with("bn backward", nchw({2, 4, 8, 8}), conv3x3(8, 4), bias, BatchNormBackwardOp{BatchNormMode::spatial}, relu);
  with("residual", nchw({2, 4, 8, 8}), conv3x3(8, 4), ResidualAddOp{nchw({2, 8, 8, 8})}, bias, relu);
  {
    auto p = std::make_unique<FusionPlan>(FusionDirection::horizontal, nchw({2, 4, 8, 8}));
    p->add(conv3x3(8, 4)), p->add(bias), p->add(relu);
    variants.emplace_back("direction", std::move(p));
  }

  std::set<std::string> keys{reference};
  for (const auto& [what, plan] : variants) {
    CAPTURE(what);
    CAPTURE(plan->key());
    CHECK(plan->key() != reference);
    CHECK(keys.insert(plan->key()).second);
  }
}

TEST_CASE("a horizontal plan is not implemented, at compile") {
  FusionPlan plan(FusionDirection::horizontal, nchw({1, 4, 8, 8}));
  plan.add(ActivationForwardOp{ActivationMode::relu});
  auto [status, message] = error_of([&] { plan.compile(offline_sm90()); });
  CHECK(status == Status::not_implemented);
  CHECK(contains(message, "horizontal fusion is not implemented"));
  CHECK(error_of([&] { plan.compile_offline(offline_sm90()); }).first == Status::not_implemented);
  CHECK_FALSE(plan.compiled());
}

TEST_CASE("an empty plan is unsupported") {
  FusionPlan plan(FusionDirection::vertical, nchw({1, 4, 8, 8}));
  auto [status, message] = error_of([&] { plan.compile(offline_sm90()); });
  CHECK(status == Status::unsupported_op);
  CHECK(contains(message, "no ops"));
  CHECK_FALSE(plan.compiled());
}

TEST_CASE("a plan no kernel family takes is unsupported, naming each family's reason") {
  // A lone bias on int32 data: no fused kernel family (MIOpen's or hipfuse's) takes it.
  FusionPlan plan(FusionDirection::vertical, nchw({1, 4, 8, 8}, DataType::int32));
  plan.add(BiasForwardOp{nchw({1, 4, 1, 1}, DataType::int32)});
  for (bool offline : {false, true}) {
    CAPTURE(offline);
    auto [status, message] = error_of([&] {
      offline ? plan.compile_offline(offline_sm90()) : plan.compile(offline_sm90());
    });
    CAPTURE(message);
    CHECK(status == Status::unsupported_op);
    CHECK(contains(message, "no fused kernel supports this plan"));
    CHECK(contains(message, plan.key()));
    for (const Solver* solver : solver_registry()) CHECK(contains(message, solver->name()));
    if (solver_registry().empty()) CHECK(contains(message, "no fused solvers are registered"));
    CHECK_FALSE(plan.compiled());
    CHECK(plan.compile_info().solver.empty());
  }
}
