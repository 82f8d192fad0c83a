// Which fused kernel family takes which plan, without a GPU: every MIOpen table row in
// every data type and layout, hipfuse's extensions, and the rejections with their reasons.
#include <doctest/doctest.h>

#include "common/error.h"
#include "solvers/solver.h"
#include "unit/test_solver_plans.h"

#include <stdexcept>
#include <string>

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

Target sm90() {
  Target t;
  t.arch = "sm_90";
  return t;
}

// The first family that applies (what compile picks), or "" with every reason in `why`.
std::string chosen(const FusionPlan& plan, std::string* why = nullptr) {
  for (const Solver* s : solver_registry()) {
    Applicability a = s->applies(plan, sm90());
    if (a.applies) return s->name();
    if (why != nullptr) *why += std::string(s->name()) + ": " + a.reason + "\n";
  }
  return "";
}

std::string expected_family(Row row) {
  switch (row) {
    case Row::na_infer: return "PointwiseChain";
    case Row::na_train: return "BnForwardTrainingFused";
    case Row::na_backward: return "BnBackwardFused";
    default: return "ConvDirectFused";
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const Solver& family(const std::string& name) {
  for (const Solver* s : solver_registry()) {
    if (name == s->name()) return *s;
  }
  FAIL("no family " << name);
  throw std::logic_error("unreachable");
}

// Whether `chosen` is the expected family, or the implicit-GEMM family that goes before the
// direct convolution for the plans it takes.
bool takes(const std::string& chosen, const std::string& expected) {
  return chosen == expected || (expected == "ConvDirectFused" && chosen == "ConvImplicitGemm");
}

// The reasons compile gives for a plan nothing takes.
std::string rejection(const FusionPlan& plan) {
  std::string why;
  CHECK(chosen(plan, &why).empty());
  return why;
}

}  // namespace

TEST_CASE("every MIOpen table row applies in fp32/fp16/bf16 x NCHW/NHWC, both BN modes") {
  for (Row row : kAllRows) {
    for (DataType type : kAllTypes) {
      for (Lay lay : kAllLayouts) {
        for (BatchNormMode bn : {BatchNormMode::spatial, BatchNormMode::per_activation}) {
          CAPTURE(name_of(row));
          CAPTURE(name_of(type));
          CAPTURE(name_of(lay));
          CAPTURE(name_of(bn));
          auto plan = row_plan(row, type, lay, {2, 5, 9, 7}, {}, bn, ActivationMode::relu);
          std::string why;
          CHECK_MESSAGE(takes(chosen(*plan, &why), expected_family(row)), why);
          CHECK(family(expected_family(row)).applies(*plan, sm90()).applies);
        }
      }
    }
  }
}

TEST_CASE("every activation mode applies in each family") {
  for (int m = 0; m < kActivationModeCount; ++m) {
    const auto mode = static_cast<ActivationMode>(m);
    CAPTURE(name_of(mode));
    for (Row row : {Row::cba, Row::na_infer, Row::na_train, Row::na_backward}) {
      auto plan = row_plan(row, DataType::half, Lay::nhwc, {2, 5, 9, 7}, {}, BatchNormMode::spatial, mode);
      CHECK(takes(chosen(*plan), expected_family(row)));
      CHECK(family(expected_family(row)).applies(*plan, sm90()).applies);
    }
  }
}

TEST_CASE("hipfuse takes more than MIOpen's table: prologues, long chains, lone ops, 3-D, groups") {
  SUBCASE("pre-activation: BN inference + activation before the convolution") {
    PlanBuilder b(DataType::float32, {2, 8, 10, 10}, Lay::nchw);
    b.bn_infer(BatchNormMode::spatial).act(ActivationMode::relu).conv({}).bias().residual();
    CHECK(family("ConvDirectFused").applies(b.plan(), sm90()).applies);
  }
  SUBCASE("eight pointwise ops around a convolution") {
    PlanBuilder b(DataType::bfloat16, {1, 4, 6, 6}, Lay::nhwc);
    b.act(ActivationMode::elu).bias().bn_infer(BatchNormMode::per_activation).conv({});
    b.bias().residual().act(ActivationMode::tanh).bn_infer(BatchNormMode::spatial).act(ActivationMode::relu);
    CHECK(family("ConvDirectFused").applies(b.plan(), sm90()).applies);
  }
  SUBCASE("lone pointwise ops (MIOpen rejects them)") {
    for (int which = 0; which < 4; ++which) {
      PlanBuilder b(DataType::half, {3, 5, 7, 2}, Lay::nchw);
      if (which == 0) b.bias();
      if (which == 1) b.act(ActivationMode::softrelu);
      if (which == 2) b.bn_infer(BatchNormMode::spatial);
      if (which == 3) b.residual();
      CHECK(chosen(b.plan()) == "PointwiseChain");
    }
  }
  SUBCASE("BN training and BN backward alone, BN training with a longer epilogue") {
    PlanBuilder a(DataType::float32, {4, 3, 5, 5}, Lay::nhwc);
    a.bn_train(BatchNormMode::spatial, false);
    CHECK(chosen(a.plan()) == "BnForwardTrainingFused");
    PlanBuilder b(DataType::half, {4, 3, 5, 5}, Lay::nchw);
    b.bn_backward(BatchNormMode::per_activation);
    CHECK(chosen(b.plan()) == "BnBackwardFused");
    PlanBuilder c(DataType::bfloat16, {4, 3, 5, 5}, Lay::nchw);
    c.bn_train(BatchNormMode::spatial, true).residual().act(ActivationMode::relu);
    CHECK(chosen(c.plan()) == "BnForwardTrainingFused");
  }
  SUBCASE("3-D, grouped, depthwise, strided and dilated convolutions") {
    ConvGeometry g3;
    g3.filter = {3, 3, 3};
    g3.pads = {1, 1, 1};
    g3.strides = {1, 2, 1};
    g3.dilations = {1, 1, 2};
    CHECK(chosen(*PlanBuilder(DataType::half, {1, 4, 5, 6, 7}, Lay::nhwc).conv(g3).bias().take()) == "ConvDirectFused");  // 3-D
    ConvGeometry dw;
    dw.k = 6;
    dw.groups = 6;
    CHECK(family("ConvDirectFused").applies(*PlanBuilder(DataType::float32, {2, 6, 9, 9}, Lay::nchw).conv(dw).take(), sm90()).applies);
    ConvGeometry grouped;
    grouped.k = 9;
    grouped.groups = 3;
    grouped.filter = {5, 1};
    grouped.pads = {2, 0};
    CHECK(family("ConvDirectFused").applies(*PlanBuilder(DataType::bfloat16, {2, 6, 9, 9}, Lay::nhwc).conv(grouped).take(), sm90()).applies);
  }
}

TEST_CASE("rejections name the reason") {
  SUBCASE("two convolutions") {
    PlanBuilder b(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    b.conv({}).act(ActivationMode::relu).conv({});
    CHECK(contains(rejection(b.plan()), "only one convolution fuses"));
  }
  SUBCASE("a transposed convolution") {
    PlanBuilder b(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    b.transpose_conv(4);
    CHECK(contains(rejection(b.plan()), "transposed convolution is not supported"));
  }
  SUBCASE("BN training after a convolution") {
    PlanBuilder b(DataType::half, {1, 4, 8, 8}, Lay::nhwc);
    b.conv({}).bn_train(BatchNormMode::spatial, true);
    CHECK(contains(rejection(b.plan()), "BN forward training cannot fuse with a convolution"));
  }
  SUBCASE("BN training not first") {
    PlanBuilder b(DataType::half, {1, 4, 8, 8}, Lay::nhwc);
    b.act(ActivationMode::relu).bn_train(BatchNormMode::spatial, true);
    CHECK(contains(rejection(b.plan()), "BN forward training fuses only as the first op"));
  }
  SUBCASE("activation backward alone, after a forward op, or after BN training") {
    PlanBuilder a(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    a.act_backward(ActivationMode::relu);
    CHECK(contains(rejection(a.plan()), "activation backward fuses only as [BN backward, activation backward]"));
    PlanBuilder b(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    b.conv({}).act_backward(ActivationMode::relu);
    CHECK(contains(rejection(b.plan()), "backward ops cannot fuse with a forward convolution"));
    PlanBuilder c(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    c.bn_train(BatchNormMode::spatial, false).act_backward(ActivationMode::relu);
    CHECK(contains(rejection(c.plan()), "activation backward fuses only"));
  }
  SUBCASE("BN backward followed by anything but one activation backward") {
    PlanBuilder a(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    a.bn_backward(BatchNormMode::spatial).act(ActivationMode::relu);
    CHECK(contains(rejection(a.plan()), "[BN backward] or [BN backward, activation backward]"));
    PlanBuilder b(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    b.bn_backward(BatchNormMode::spatial).act_backward(ActivationMode::relu).act_backward(ActivationMode::relu);
    CHECK(contains(rejection(b.plan()), "[BN backward] or [BN backward, activation backward]"));
    // The reason names the op past the pattern (op 2 here), not the activation backward.
    const Applicability c = family("BnBackwardFused").applies(b.plan(), sm90());
    CHECK_FALSE(c.applies);
    CHECK(contains(c.reason, "op 2 (activ_bwd(relu)) cannot be part of it"));
  }
  SUBCASE("chains longer than the cap") {
    PlanBuilder a(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    for (int i = 0; i < 9; ++i) a.act(ActivationMode::relu);
    CHECK(contains(rejection(a.plan()), "9 pointwise ops; at most 8 fuse"));
    PlanBuilder b(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
    b.act(ActivationMode::relu).conv({});
    for (int i = 0; i < 8; ++i) b.bias();
    CHECK(contains(rejection(b.plan()), "9 pointwise ops; at most 8 fuse"));
  }
  SUBCASE("data types without kernels") {
    TensorDesc x = packed(DataType::int8, {1, 4, 8, 8}, Lay::nhwc);
    PlanBuilder b(x, Lay::nhwc);
    b.act(ActivationMode::relu);
    CHECK(contains(rejection(b.plan()), "data type int8 is not supported"));
    PlanBuilder d(DataType::float64, {1, 4, 8, 8}, Lay::nchw);
    d.bn_train(BatchNormMode::spatial, false);
    CHECK(contains(rejection(d.plan()), "data type fp64 is not supported"));
  }
  SUBCASE("a filter too large to stage") {
    ConvGeometry huge;
    huge.filter = {128, 128};
    huge.pads = {64, 64};
    PlanBuilder b(DataType::float32, {1, 1, 130, 130}, Lay::nchw);
    b.conv(huge);
    const Applicability a = family("ConvDirectFused").applies(b.plan(), sm90());
    CHECK_FALSE(a.applies);
    CHECK(contains(a.reason, "the filter has 16384 taps"));
  }
}

TEST_CASE("compile of a plan no family takes is UnsupportedOp, before any kernel is built") {
  PlanBuilder b(DataType::float32, {1, 4, 8, 8}, Lay::nchw);
  b.conv({}).conv({});
  auto plan = b.take();
  try {
    plan->compile_offline(sm90());
    FAIL("expected UnsupportedOp");
  } catch (const Error& e) {
    CHECK(e.status() == Status::unsupported_op);
    CHECK(contains(e.what(), "ConvDirectFused"));
  }
  CHECK_FALSE(plan->compiled());
}
