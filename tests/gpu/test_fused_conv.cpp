// Family 1 on the GPU: direct convolution with fused prologue and epilogue against the CPU
// reference, for every MIOpen row with a convolution in every data type and layout, and the
// geometry MIOpen's fused kernels never took (groups, depthwise, 3-D, dilation, prologues).
#include "gpu/test_fused_support.h"
#include "solvers/conv_direct_solver.h"
#include "solvers/conv_implicit_gemm.h"

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

// The direct family itself, also on plans the implicit-GEMM family would take first.
void check_direct(std::unique_ptr<FusionPlan> plan, std::uint64_t seed) {
  static const ConvDirectSolver direct;
  run_and_check(std::move(plan), seed, 0.0, &direct);
}

}  // namespace

TEST_CASE("fused conv: every MIOpen conv row in fp32/fp16/bf16 x NCHW/NHWC") {
  const Row rows[] = {Row::cbna, Row::cba, Row::ca, Row::cb, Row::c, Row::cn, Row::cna};
  std::uint64_t seed = 1;
  for (Row row : rows) {
    for (DataType type : kAllTypes) {
      for (Lay lay : kAllLayouts) {
        const auto bn = seed % 2 ? BatchNormMode::spatial : BatchNormMode::per_activation;
        const auto act = static_cast<ActivationMode>(seed % kActivationModeCount);
        CAPTURE(name_of(row));
        CAPTURE(name_of(type));
        CAPTURE(name_of(lay));
        ConvGeometry g;
        g.k = 20;  // one full tile of 16 output channels and a tail of 4
        check_direct(row_plan(row, type, lay, {3, 7, 13, 11}, g, bn, act), seed++);
      }
    }
  }
}

TEST_CASE("fused conv: prologue (pre-activation BN + activation) with padding applied after it") {
  std::uint64_t seed = 100;
  for (DataType type : kAllTypes) {
    for (Lay lay : kAllLayouts) {
      CAPTURE(name_of(type));
      CAPTURE(name_of(lay));
      PlanBuilder b(type, {2, 6, 9, 10}, lay);
      b.bn_infer(BatchNormMode::spatial).act(ActivationMode::elu).conv({}).bias().residual();
      check_direct(b.take(), seed++);
    }
  }
}

TEST_CASE("fused conv: groups, depthwise, 3-D, dilation, strides, big and 1x1 filters") {
  SUBCASE("depthwise 3x3, fp16 NHWC and fp32 NCHW") {
    ConvGeometry dw;
    dw.k = 12;
    dw.groups = 12;
    check_direct(PlanBuilder(DataType::half, {2, 12, 11, 9}, Lay::nhwc).conv(dw).bias().act(ActivationMode::relu).take(), 200);
    check_direct(PlanBuilder(DataType::float32, {2, 12, 11, 9}, Lay::nchw).conv(dw).take(), 201);
  }
  SUBCASE("grouped 5x3, stride 2x1, asymmetric padding per dimension") {
    ConvGeometry g;
    g.k = 9;
    g.groups = 3;
    g.filter = {5, 3};
    g.pads = {2, 0};
    g.strides = {2, 1};
    check_direct(PlanBuilder(DataType::bfloat16, {3, 6, 11, 13}, Lay::nchw).conv(g).bias().take(), 202);
    check_direct(PlanBuilder(DataType::float32, {3, 6, 11, 13}, Lay::nhwc).conv(g).bn_infer(BatchNormMode::per_activation).take(), 203);
  }
  SUBCASE("3-D convolution with per-dimension stride and dilation") {
    ConvGeometry g;
    g.k = 5;
    g.filter = {3, 2, 3};
    g.pads = {1, 0, 2};
    g.strides = {1, 2, 1};
    g.dilations = {2, 1, 1};
    check_direct(PlanBuilder(DataType::half, {2, 3, 6, 7, 8}, Lay::nhwc).conv(g).bias().act(ActivationMode::tanh).take(), 204);
    check_direct(PlanBuilder(DataType::float32, {2, 3, 6, 7, 8}, Lay::nchw).conv(g).bn_infer(BatchNormMode::spatial).take(), 205);
  }
  SUBCASE("dilated 3x3, 1x1 with many channels, 11x11 stride 4, odd channel counts") {
    ConvGeometry dil;
    dil.k = 7;
    dil.dilations = {2, 3};
    dil.pads = {2, 3};
    check_direct(PlanBuilder(DataType::bfloat16, {2, 5, 12, 12}, Lay::nhwc).conv(dil).take(), 206);
    ConvGeometry one;
    one.k = 48;
    one.filter = {1, 1};
    one.pads = {0, 0};
    check_direct(PlanBuilder(DataType::half, {4, 67, 7, 7}, Lay::nhwc).conv(one).bias().act(ActivationMode::relu).take(), 207);
    ConvGeometry big;
    big.k = 3;
    big.filter = {11, 11};
    big.pads = {5, 5};
    big.strides = {4, 4};
    check_direct(PlanBuilder(DataType::float32, {1, 3, 35, 33}, Lay::nchw).conv(big).bias().take(), 208);
  }
  SUBCASE("1x1 NCHW with 512 output channels (gathered A), with a prologue and a residual") {
    ConvGeometry pointwise512;
    pointwise512.k = 512;
    pointwise512.filter = {1, 1};
    pointwise512.pads = {0, 0};
    check_direct(PlanBuilder(DataType::half, {3, 64, 7, 7}, Lay::nchw).conv(pointwise512).bias()
                     .act(ActivationMode::relu).take(), 213);
    PlanBuilder pre(DataType::bfloat16, {2, 40, 9, 9}, Lay::nchw);
    pre.bn_infer(BatchNormMode::spatial).act(ActivationMode::relu).conv(pointwise512).bias().residual();
    check_direct(pre.take(), 214);
  }
  SUBCASE("non-packed input strides") {
    TensorDesc strided = packed(DataType::float32, {2, 4, 8, 8}, Lay::nchw);
    strided.strides = {600, 150, 16, 2};
    check_direct(PlanBuilder(strided, Lay::nchw).conv({}).bias().act(ActivationMode::leakyrelu).take(), 210);
  }
  SUBCASE("batch 1 with many output channels, batch 33") {
    ConvGeometry wide;
    wide.k = 96;
    check_direct(PlanBuilder(DataType::half, {1, 32, 7, 7}, Lay::nchw).conv(wide).bias().take(), 211);
    check_direct(PlanBuilder(DataType::bfloat16, {33, 3, 8, 8}, Lay::nhwc).conv({}).act(ActivationMode::softrelu).take(), 212);
  }
}

// The implicit-GEMM epilogue folds alpha, a bias and a spatial BN inference into one affine map
// a channel (Chain::absorbs_scale); a per-activation BN keeps alpha apart. alpha != 1 on tiles
// that stage 16-bit y (the channels' state in shared memory), fp32 SIMT tiles, and NCHW y.
TEST_CASE("fused conv: alpha folded with a bias and BN inference (implicit GEMM)") {
  static const ConvImplicitGemmSolver igemm;
  struct Case {
    DataType type;
    Lay lay;
    std::vector<std::int64_t> x;
    std::int64_t k;
    std::vector<std::int64_t> filter;
    BatchNormMode bn;
    double alpha;
  };
  const Case cases[] = {
      {DataType::half, Lay::nhwc, {4, 64, 14, 14}, 128, {1, 1}, BatchNormMode::spatial, 0.375},
      {DataType::bfloat16, Lay::nchw, {4, 64, 14, 14}, 96, {1, 1}, BatchNormMode::spatial, -1.5},
      {DataType::half, Lay::nchw, {2, 32, 9, 10}, 40, {3, 3}, BatchNormMode::spatial, 2.25},
      {DataType::float32, Lay::nchw, {2, 24, 9, 10}, 40, {3, 3}, BatchNormMode::spatial, 0.375},
      {DataType::float32, Lay::nhwc, {2, 24, 9, 10}, 36, {1, 1}, BatchNormMode::spatial, -0.625},
      {DataType::half, Lay::nhwc, {2, 32, 9, 10}, 40, {3, 3}, BatchNormMode::per_activation, 0.375},
  };
  std::uint64_t seed = 320;
  for (const Case& t : cases) {
    CAPTURE(name_of(t.type));
    CAPTURE(name_of(t.lay));
    CAPTURE(t.alpha);
    ConvGeometry g;
    g.k = t.k;
    g.filter = t.filter;
    if (t.filter[0] == 1) g.pads = {0, 0};
    FusedCase c(PlanBuilder(t.type, t.x, t.lay).conv(g).bias().bn_infer(t.bn).act(ActivationMode::relu).take(),
                seed++);
    c.compile(&igemm);
    c.set_conv_alpha(t.alpha);
    c.run();
    c.check();
  }
}

TEST_CASE("fused conv: the convolution's alpha scales it before the epilogue") {
  PlanBuilder b(DataType::float32, {2, 4, 6, 6}, Lay::nchw);
  b.conv({}).bias().residual().act(ActivationMode::relu);
  FusedCase c(b.take(), 300);
  static const ConvDirectSolver direct;
  c.compile(&direct);
  c.set_conv_alpha(0.375);
  c.run();
  c.check();
}
