// Family 2 on the GPU: pointwise chains without a convolution (NA inference and beyond)
// against the CPU reference: both BN modes, all activations, long chains, every data type
// and layout, vector and scalar paths, non-packed and 5-D tensors.
#include "gpu/test_fused_support.h"

using namespace hipfuse;
using namespace hipfuse::test;

TEST_CASE("fused pointwise: NA inference in fp32/fp16/bf16 x NCHW/NHWC x spatial/per-activation") {
  std::uint64_t seed = 1000;
  for (DataType type : kAllTypes) {
    for (Lay lay : kAllLayouts) {
      for (BatchNormMode bn : {BatchNormMode::spatial, BatchNormMode::per_activation}) {
        CAPTURE(name_of(type));
        CAPTURE(name_of(lay));
        CAPTURE(name_of(bn));
        const auto act = static_cast<ActivationMode>(seed % kActivationModeCount);
        // W = 16: the 16-byte path for NCHW; C = 8: the 16-byte path for fp16/bf16 NHWC.
        run_and_check(row_plan(Row::na_infer, type, lay, {3, 8, 5, 16}, {}, bn, act), seed++);
        // Odd sizes: the scalar path.
        run_and_check(row_plan(Row::na_infer, type, lay, {3, 5, 7, 9}, {}, bn, act), seed++);
      }
    }
  }
}

TEST_CASE("fused pointwise: NA inference on the 16-byte paths: odd planes, channel runs, grid-stride loops") {
  // {N, C, H, W}: 7x7 and 14x14 planes (vectors across two channels), a 4x14 plane (a multiple
  // of the lanes with W not: one channel per vector), 1x1 and 1x2 planes (runs shorter than a
  // vector), C = 1, an element count that leaves a tail, NHWC with C = 64 and 160 (lanes along
  // the channels, prepared once per thread; for fp32 C = 160 the host rounds the grid to 15
  // blocks for it), and two tensors large enough for several grid-stride iterations.
  const std::vector<std::int64_t> shapes[] = {
      {3, 20, 7, 7}, {2, 9, 14, 14}, {2, 6, 4, 14}, {4, 37, 1, 1}, {3, 11, 1, 2}, {5, 1, 7, 9},
      {3, 5, 7, 9},  {4, 64, 6, 5},  {8, 160, 7, 7}, {32, 1024, 17, 17}, {64, 512, 15, 15}};
  std::uint64_t seed = 1300;
  for (DataType type : kAllTypes) {
    for (Lay lay : kAllLayouts) {
      for (const auto& shape : shapes) {
        const bool big = shape[0] * shape[1] * shape[2] * shape[3] > 4'000'000;
        if (big && (type == DataType::bfloat16 || lay == Lay::nhwc)) continue;  // fp32 and fp16 NCHW suffice
        for (BatchNormMode bn : {BatchNormMode::spatial, BatchNormMode::per_activation}) {
          CAPTURE(name_of(type));
          CAPTURE(name_of(lay));
          CAPTURE(name_of(bn));
          CAPTURE(shape[1]);
          CAPTURE(shape[2]);
          CAPTURE(shape[3]);
          run_and_check(row_plan(Row::na_infer, type, lay, shape, {}, bn, ActivationMode::relu), seed++);
        }
      }
    }
  }
  // Bias and two BN steps in one chain: several per-channel states per vector.
  for (Lay lay : kAllLayouts) {
    PlanBuilder b(DataType::half, {3, 24, 7, 7}, lay);
    b.bias().bn_infer(BatchNormMode::spatial).act(ActivationMode::leakyrelu).bn_infer(BatchNormMode::spatial);
    run_and_check(b.take(), 1399 + static_cast<int>(lay));
  }
}

TEST_CASE("fused pointwise: every activation mode in every data type") {
  std::uint64_t seed = 1100;
  for (DataType type : kAllTypes) {
    for (int m = 0; m < kActivationModeCount; ++m) {
      CAPTURE(name_of(type));
      CAPTURE(name_of(static_cast<ActivationMode>(m)));
      PlanBuilder b(type, {2, 4, 6, 8}, m % 2 ? Lay::nhwc : Lay::nchw);
      b.bias().act(static_cast<ActivationMode>(m));
      run_and_check(b.take(), seed++);
    }
  }
}

TEST_CASE("fused pointwise: eight ops in any order, lone ops, 5-D, non-packed") {
  SUBCASE("eight ops") {
    PlanBuilder b(DataType::half, {2, 8, 6, 8}, Lay::nhwc);
    b.residual().bias().act(ActivationMode::tanh).bn_infer(BatchNormMode::per_activation);
    b.act(ActivationMode::elu).bn_infer(BatchNormMode::spatial).residual().act(ActivationMode::clippedrelu);
    run_and_check(b.take(), 1200);
  }
  SUBCASE("lone ops") {
    run_and_check(PlanBuilder(DataType::float32, {2, 3, 4, 5}, Lay::nchw).bias().take(), 1201);
    run_and_check(PlanBuilder(DataType::bfloat16, {2, 3, 4, 5}, Lay::nhwc).residual().take(), 1202);
    run_and_check(PlanBuilder(DataType::half, {2, 3, 4, 5}, Lay::nchw).bn_infer(BatchNormMode::spatial).take(), 1203);
  }
  SUBCASE("5-D") {
    run_and_check(PlanBuilder(DataType::bfloat16, {2, 3, 4, 5, 8}, Lay::nhwc).bias().act(ActivationMode::relu).take(), 1204);
    run_and_check(PlanBuilder(DataType::float32, {2, 3, 4, 5, 8}, Lay::nchw)
                      .bn_infer(BatchNormMode::per_activation).act(ActivationMode::logistic).take(), 1205);
  }
  SUBCASE("non-packed tensors") {
    TensorDesc strided = packed(DataType::half, {2, 3, 5, 5}, Lay::nhwc);
    strided.strides = {100, 1, 20, 4};  // C = 3 in slots of 4
    run_and_check(PlanBuilder(strided, Lay::nhwc).bias().act(ActivationMode::relu).residual().take(), 1206);
  }
}
