// Family 4 on the GPU: [BN backward, activation backward] and BN backward alone against the
// CPU reference: dx, dscale, dbias; all ten activation modes (POWER with the dy factor),
// both modes, every data type and layout, one- and multi-partial tilings.
#include "gpu/test_fused_support.h"

using namespace hipfuse;
using namespace hipfuse::test;

TEST_CASE("fused BN backward: NA backward training in fp32/fp16/bf16 x NCHW/NHWC x both modes") {
  std::uint64_t seed = 3000;
  for (DataType type : kAllTypes) {
    for (Lay lay : kAllLayouts) {
      for (BatchNormMode bn : {BatchNormMode::spatial, BatchNormMode::per_activation}) {
        CAPTURE(name_of(type));
        CAPTURE(name_of(lay));
        CAPTURE(name_of(bn));
        const auto act = static_cast<ActivationMode>(seed % kActivationModeCount);
        run_and_check(row_plan(Row::na_backward, type, lay, {6, 5, 9, 11}, {}, bn, act), seed++);
      }
    }
  }
}

TEST_CASE("fused BN backward: every activation mode backward") {
  std::uint64_t seed = 3100;
  for (int m = 0; m < kActivationModeCount; ++m) {
    for (BatchNormMode bn : {BatchNormMode::spatial, BatchNormMode::per_activation}) {
      CAPTURE(name_of(static_cast<ActivationMode>(m)));
      CAPTURE(name_of(bn));
      run_and_check(row_plan(Row::na_backward, DataType::float32, m % 2 ? Lay::nhwc : Lay::nchw, {4, 3, 7, 5}, {}, bn,
                             static_cast<ActivationMode>(m)),
                    seed++);
    }
  }
}

TEST_CASE("fused BN backward: alone, one partial and many partials") {
  run_and_check(PlanBuilder(DataType::half, {4, 6, 5, 5}, Lay::nhwc).bn_backward(BatchNormMode::spatial).take(), 3200);
  run_and_check(PlanBuilder(DataType::float32, {64, 3, 40, 40}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                    .act_backward(ActivationMode::relu).take(), 3201);
  run_and_check(PlanBuilder(DataType::bfloat16, {4, 2048, 3, 3}, Lay::nhwc).bn_backward(BatchNormMode::spatial)
                    .act_backward(ActivationMode::logistic).take(), 3202);
  run_and_check(PlanBuilder(DataType::float32, {4096, 2, 2, 2}, Lay::nchw).bn_backward(BatchNormMode::per_activation)
                    .act_backward(ActivationMode::power).take(), 3203);
}

TEST_CASE("fused BN backward: row walks (16-byte vectors along the plane, scalar, strided) and merged partials") {
  SUBCASE("vector plane, merged partials (two launches)") {
    run_and_check(PlanBuilder(DataType::float32, {8, 64, 56, 56}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::relu).take(), 3300);
    run_and_check(PlanBuilder(DataType::half, {8, 64, 56, 56}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::logistic).take(), 3301);
    run_and_check(PlanBuilder(DataType::bfloat16, {8, 64, 56, 56}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .take(), 3302);
  }
  SUBCASE("scalar plane: planes of 49 and 196 (fp16)") {
    run_and_check(PlanBuilder(DataType::float32, {64, 3, 7, 7}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::relu).take(), 3303);
    run_and_check(PlanBuilder(DataType::half, {64, 16, 14, 14}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::elu).take(), 3304);
  }
  SUBCASE("more planes of 49 and 25 (scalar walk; the forward takes plane groups there)") {
    // One partial; merged partials; a finalize launch.
    run_and_check(PlanBuilder(DataType::float32, {8, 2048, 7, 7}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::relu).take(), 3320);
    run_and_check(PlanBuilder(DataType::float32, {16, 256, 7, 7}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::logistic).take(), 3321);
    run_and_check(PlanBuilder(DataType::float32, {64, 8, 7, 7}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .take(), 3322);
    run_and_check(PlanBuilder(DataType::bfloat16, {32, 64, 5, 5}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::elu).take(), 3323);
    run_and_check(PlanBuilder(DataType::half, {8, 512, 7, 7}, Lay::nchw).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::relu).take(), 3324);
  }
  SUBCASE("channels-last rows at a uniform stride (finalize launch)") {
    run_and_check(PlanBuilder(DataType::half, {8, 64, 56, 56}, Lay::nhwc).bn_backward(BatchNormMode::spatial)
                      .act_backward(ActivationMode::relu).take(), 3305);
  }
  SUBCASE("padded batch stride and padded rows") {
    for (DataType type : {DataType::float32, DataType::half}) {
      CAPTURE(name_of(type));
      TensorDesc padded_n = packed(type, {4, 8, 16, 16}, Lay::nchw);
      padded_n.strides = {8 * 256 + 4, 256, 16, 1};
      run_and_check(PlanBuilder(padded_n, Lay::nchw).bn_backward(BatchNormMode::spatial)
                        .act_backward(ActivationMode::tanh).take(), 3310);
      TensorDesc padded_h = packed(type, {4, 8, 16, 16}, Lay::nchw);
      padded_h.strides = {8 * 16 * 20, 16 * 20, 20, 1};
      run_and_check(PlanBuilder(padded_h, Lay::nchw).bn_backward(BatchNormMode::spatial)
                        .act_backward(ActivationMode::relu).take(), 3311);
      run_and_check(PlanBuilder(padded_h, Lay::nchw).bn_backward(BatchNormMode::per_activation)
                        .act_backward(ActivationMode::relu).take(), 3312);
    }
  }
}
