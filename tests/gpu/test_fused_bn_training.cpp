// Family 3 on the GPU: BN forward training + activation (and longer epilogues) against the
// CPU reference: y, saved mean / inverse std, running statistics only when asked for, both
// modes, one-partial and multi-partial tilings, data with a large mean (numerics).
#include "gpu/test_fused_support.h"
#include "solvers/bn_tiling.h"

using namespace hipfuse;
using namespace hipfuse::test;

TEST_CASE("fused BN training: NA forward training in fp32/fp16/bf16 x NCHW/NHWC x both modes") {
  std::uint64_t seed = 2000;
  for (DataType type : kAllTypes) {
    for (Lay lay : kAllLayouts) {
      for (BatchNormMode bn : {BatchNormMode::spatial, BatchNormMode::per_activation}) {
        CAPTURE(name_of(type));
        CAPTURE(name_of(lay));
        CAPTURE(name_of(bn));
        const auto act = static_cast<ActivationMode>(seed % kActivationModeCount);
        PlanBuilder b(type, {6, 5, 9, 11}, lay);
        b.bn_train(bn, seed % 2 == 0).act(act);
        run_and_check(b.take(), seed++, 0.5);
      }
    }
  }
}

TEST_CASE("fused BN training: one partial (many channels) and many partials (few channels, many rows)") {
  // 3 channels x 64*40*40 rows: several partials, so reduce, finalize and apply run.
  run_and_check(PlanBuilder(DataType::float32, {64, 3, 40, 40}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                    .act(ActivationMode::relu).take(), 2100, 3.0);
  run_and_check(PlanBuilder(DataType::half, {64, 3, 40, 40}, Lay::nhwc).bn_train(BatchNormMode::spatial, true)
                    .act(ActivationMode::relu).take(), 2101, 3.0);
  // 2048 channels: one partial per column, the fused single pass.
  run_and_check(PlanBuilder(DataType::bfloat16, {4, 2048, 3, 3}, Lay::nchw).bn_train(BatchNormMode::spatial, false)
                    .take(), 2102, 3.0);
  // Per-activation with a large batch and few columns: several partials.
  run_and_check(PlanBuilder(DataType::float32, {4096, 2, 2, 2}, Lay::nhwc).bn_train(BatchNormMode::per_activation, true)
                    .act(ActivationMode::elu).take(), 2103, 3.0);
}

TEST_CASE("fused BN training: a mean far from zero keeps the variance accurate") {
  // mean 100, std 1: E[x^2] - mean^2 in fp32 would lose every significant digit. The saved
  // statistics get the default tolerance; y carries the fp32 rounding of the mean itself
  // (|mean| * 2^-24 per element, as any fp32 kernel with an fp32 mean does).
  const double mean = 100.0, mean_rounding = mean * std::ldexp(1.0, -23);
  run_and_check(PlanBuilder(DataType::float32, {32, 4, 24, 24}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                    .take(), 2200, mean, nullptr, mean_rounding);
  run_and_check(PlanBuilder(DataType::float32, {32, 4, 24, 24}, Lay::nhwc).bn_train(BatchNormMode::per_activation, true)
                    .take(), 2201, mean, nullptr, mean_rounding);
}

TEST_CASE("fused BN training: batch of one per-activation (M = 1, no variance correction) and longer epilogues") {
  run_and_check(PlanBuilder(DataType::float32, {1, 6, 5, 5}, Lay::nchw).bn_train(BatchNormMode::per_activation, true)
                    .take(), 2300);
  PlanBuilder b(DataType::bfloat16, {4, 8, 6, 6}, Lay::nhwc);
  b.bn_train(BatchNormMode::spatial, true).residual().act(ActivationMode::relu);
  run_and_check(b.take(), 2301, 1.0);
  PlanBuilder c(DataType::half, {4, 8, 6, 6}, Lay::nchw);
  c.bn_train(BatchNormMode::spatial, false).bias().act(ActivationMode::clippedrelu).bn_infer(BatchNormMode::per_activation);
  run_and_check(c.take(), 2302, 1.0);
}

TEST_CASE("fused BN training: row walks (16-byte vectors along the plane, scalar, strided) and merged partials") {
  // On a 132-SM device: 64 channels x 8 partials of 3136 rows, the apply phase merging the
  // partials itself (two launches); planes of 3136 take 16-byte vectors in fp32 and fp16.
  SUBCASE("vector plane, merged partials") {
    run_and_check(PlanBuilder(DataType::float32, {8, 64, 56, 56}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2400, 3.0);
    run_and_check(PlanBuilder(DataType::half, {8, 64, 56, 56}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .bias().act(ActivationMode::leakyrelu).take(), 2401, 3.0);
  }
  SUBCASE("scalar plane: planes of 49 (any type) and 196 (fp16: not a multiple of 8)") {
    run_and_check(PlanBuilder(DataType::float32, {64, 3, 7, 7}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2402, 3.0);
    run_and_check(PlanBuilder(DataType::half, {64, 16, 14, 14}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2403, 3.0);
    run_and_check(PlanBuilder(DataType::float32, {64, 16, 14, 14}, Lay::nchw).bn_train(BatchNormMode::spatial, false)
                      .act(ActivationMode::relu).take(), 2404, 3.0);
  }
  SUBCASE("plane groups: planes 16-byte vectors do not tile, walked across groups of channels") {
    // One partial (512 groups of 4 channels); merged partials (apply phase merges); a
    // finalize launch (fp16 14x14 above: groups of 8); a residual reading the coordinates.
    run_and_check(PlanBuilder(DataType::float32, {8, 2048, 7, 7}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2420, 3.0);
    run_and_check(PlanBuilder(DataType::float32, {16, 256, 7, 7}, Lay::nchw).bn_train(BatchNormMode::spatial, false)
                      .act(ActivationMode::elu).take(), 2421, 3.0);
    run_and_check(PlanBuilder(DataType::float32, {64, 8, 7, 7}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2422, 3.0);
    PlanBuilder b(DataType::bfloat16, {32, 64, 5, 5}, Lay::nchw);
    b.bn_train(BatchNormMode::spatial, true).residual().act(ActivationMode::relu);
    run_and_check(b.take(), 2423, 3.0);
    run_and_check(PlanBuilder(DataType::half, {8, 512, 7, 7}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::leakyrelu).take(), 2424, 3.0);
  }
  SUBCASE("channels-last rows at a uniform stride (finalize launch) and 5-D planes") {
    run_and_check(PlanBuilder(DataType::half, {8, 64, 56, 56}, Lay::nhwc).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2405, 3.0);
    run_and_check(PlanBuilder(DataType::float32, {2, 4, 3, 8, 8}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2406, 1.0);
  }
  SUBCASE("padded batch stride (plane walk; 16-byte vectors in fp32 only) and padded rows (coordinate walk)") {
    for (DataType type : {DataType::float32, DataType::half}) {
      CAPTURE(name_of(type));
      TensorDesc padded_n = packed(type, {4, 8, 16, 16}, Lay::nchw);
      padded_n.strides = {8 * 256 + 4, 256, 16, 1};
      run_and_check(PlanBuilder(padded_n, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                        .act(ActivationMode::relu).take(), 2410, 1.0);
      TensorDesc padded_h = packed(type, {4, 8, 16, 16}, Lay::nchw);
      padded_h.strides = {8 * 16 * 20, 16 * 20, 20, 1};
      run_and_check(PlanBuilder(padded_h, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                        .act(ActivationMode::relu).take(), 2411, 1.0);
      run_and_check(PlanBuilder(padded_h, Lay::nchw).bn_train(BatchNormMode::per_activation, true)
                        .act(ActivationMode::relu).take(), 2412, 1.0);
    }
  }
}

TEST_CASE("fused BN training: threads holding their share of x from the reduce to the normalise") {
  // One partial, fp32 (BnTiling::held_units): up to 6 vectors a thread in registers, the rest
  // in shared memory; some threads hold one fewer than others.
  SUBCASE("plane groups: 64 images over 5 image lanes (13 vectors, the last for 4 lanes); 37 images") {
    run_and_check(PlanBuilder(DataType::float32, {64, 2048, 7, 7}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2430, 3.0);
    PlanBuilder b(DataType::float32, {37, 1200, 7, 7}, Lay::nchw);
    b.bn_train(BatchNormMode::spatial, false).bias().residual().act(ActivationMode::elu);
    run_and_check(b.take(), 2431, 3.0);
  }
  SUBCASE("vectors along the plane: 14x14 planes of 64 images (13 vectors) and 40 (8)") {
    run_and_check(PlanBuilder(DataType::float32, {64, 1024, 14, 14}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                      .act(ActivationMode::relu).take(), 2432, 3.0);
    run_and_check(PlanBuilder(DataType::float32, {40, 1024, 14, 14}, Lay::nchw).bn_train(BatchNormMode::spatial, false)
                      .bias().act(ActivationMode::leakyrelu).take(), 2433, 3.0);
  }
}

namespace {

// The tiling the solver takes for a BN training plan (`persistence` as HIPFUSE_BN_PERSISTENT
// sets it).
BnTiling tiling_of(const FusionPlan& plan, BnPersistence persistence = BnPersistence::heuristic) {
  const auto& bn = std::get<BatchNormForwardTrainingOp>(plan.ops().front()->op);
  return choose_bn_tiling(plan.input(), bn.mode, device_target(), BnKernel::forward_training, persistence);
}

// Runs a one-launch BN training plan three times back to back (counters, if it has them, must
// return to zero after each), every output poisoned and checked each time.
void run_three_times(std::unique_ptr<FusionPlan> plan, std::uint64_t seed) {
  FusedCase c(std::move(plan), seed, 3.0);
  c.compile();
  REQUIRE(c.invoker().kernel_launches() == 1);
  for (int run = 0; run < 3; ++run) {
    CAPTURE(run);
    c.run();
    c.check();
  }
}

// run_three_times for a plan whose tiling exchanges partial moments in one launch.
void check_exchange(std::unique_ptr<FusionPlan> plan, std::uint64_t seed) {
  const BnTiling tiling = tiling_of(*plan);
  REQUIRE(tiling.exchange);
  CAPTURE(tiling.partials);
  CAPTURE(tiling.held_units);
  run_three_times(std::move(plan), seed);
}

}  // namespace

TEST_CASE("fused BN training: one launch exchanging partial moments between blocks") {
  // Each block holds its rows, publishes its partial moments, waits for its column's others
  // and normalises what it holds (BnTiling::exchange: NCHW planes, x larger than the L2).
  SUBCASE("fp32: 32 partials of 14112 rows (4 vectors a thread in registers, 10 in shared memory, the last for 200 threads)") {
    check_exchange(PlanBuilder(DataType::float32, {36, 64, 112, 112}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                       .act(ActivationMode::relu).take(), 2440);
  }
  SUBCASE("fp16 and bf16, with a bias and a residual in the epilogue") {
    check_exchange(PlanBuilder(DataType::half, {64, 64, 112, 112}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                       .bias().act(ActivationMode::leakyrelu).take(), 2441);
    PlanBuilder b(DataType::bfloat16, {64, 64, 112, 112}, Lay::nchw);
    b.bn_train(BatchNormMode::spatial, false).residual().act(ActivationMode::elu);
    check_exchange(b.take(), 2442);
  }
  SUBCASE("a ResNet-50 shape: 14 partials of 14 vectors a thread") {
    check_exchange(PlanBuilder(DataType::float32, {64, 256, 56, 56}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                       .act(ActivationMode::relu).take(), 2444);
  }
}

namespace {

// HIPFUSE_BN_PERSISTENT set while in scope (the solver reads it at every compile).
struct PersistenceVariable {
  explicit PersistenceVariable(const char* value) { setenv("HIPFUSE_BN_PERSISTENT", value, 1); }
  ~PersistenceVariable() { unsetenv("HIPFUSE_BN_PERSISTENT"); }
};

// run_three_times for a plan whose tiling takes persistent blocks (`persistence`: as the solver
// chooses with HIPFUSE_BN_PERSISTENT unset or "1").
void check_persistent(std::unique_ptr<FusionPlan> plan, std::uint64_t seed,
                      BnPersistence persistence = BnPersistence::heuristic) {
  const BnTiling tiling = tiling_of(*plan, persistence);
  REQUIRE(tiling.persistent());
  CAPTURE(tiling.persistent_blocks);
  CAPTURE(tiling.held_units);
  CAPTURE(tiling.held_in_registers);
  PersistenceVariable variable(persistence == BnPersistence::wherever_fits ? "1" : "");
  run_three_times(std::move(plan), seed);
}

}  // namespace

TEST_CASE("fused BN training: persistent blocks holding a whole column, loading the next while they normalise") {
  // BnTiling::persistent: one block of 1024 threads a multiprocessor, each walking columns b,
  // b + grid, ...
  SUBCASE("fp32 64x512x28x28 (13 vectors a thread: 6 in registers, 7 in shared memory; ~4 columns a block)") {
    check_persistent(PlanBuilder(DataType::float32, {64, 512, 28, 28}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                         .act(ActivationMode::relu).take(), 2450);
  }
  SUBCASE("fp32 40x600x30x30: threads holding 8 or 9 vectors, blocks walking 4 or 5 columns, bias and leaky ReLU") {
    check_persistent(PlanBuilder(DataType::float32, {40, 600, 30, 30}, Lay::nchw)
                         .bn_train(BatchNormMode::spatial, false).bias().act(ActivationMode::leakyrelu).take(), 2451);
  }
  SUBCASE("fp16 and bf16 64x512x28x28, with a residual and a bias in the epilogue") {
    PlanBuilder h(DataType::half, {64, 512, 28, 28}, Lay::nchw);
    h.bn_train(BatchNormMode::spatial, true).residual().act(ActivationMode::elu);
    check_persistent(h.take(), 2452);
    check_persistent(PlanBuilder(DataType::bfloat16, {64, 512, 28, 28}, Lay::nchw)
                         .bn_train(BatchNormMode::spatial, false).bias().act(ActivationMode::relu).take(), 2453);
  }
  SUBCASE("forced (HIPFUSE_BN_PERSISTENT=1): fewer columns than multiprocessors; a column all in registers") {
    check_persistent(PlanBuilder(DataType::float32, {64, 100, 28, 28}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                         .act(ActivationMode::relu).take(), 2454, BnPersistence::wherever_fits);
    check_persistent(PlanBuilder(DataType::float32, {64, 1024, 14, 14}, Lay::nchw)
                         .bn_train(BatchNormMode::spatial, true).act(ActivationMode::relu).take(), 2455,
                     BnPersistence::wherever_fits);
  }
}

namespace {

// Runs BN training + ReLU over x of `shape` (fp32 NCHW) from 16-byte aligned pointers and
// from pointers 4 bytes off, and compares the two.
void check_misaligned_walk(const std::vector<std::int64_t>& shape) {
  const TensorDesc x = packed(DataType::float32, shape, Lay::nchw);
  auto plan = PlanBuilder(x, Lay::nchw).bn_train(BatchNormMode::spatial, false).act(ActivationMode::relu).take();
  plan->compile(device_target());
  const auto n = static_cast<std::size_t>(x.element_count()), bytes = n * sizeof(float);
  const auto channels = static_cast<std::size_t>(x.lengths[1]);
  std::vector<float> host(n), scale(channels), bias(channels);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>((i * 2654435761ull) % 1001) / 250.0f - 1.0f;
  for (std::size_t c = 0; c < channels; ++c) {
    scale[c] = 0.5f + static_cast<float>(c) / 64.0f;
    bias[c] = static_cast<float>(c % 7) / 8.0f - 0.25f;
  }
  DeviceBuffer in(bytes + 16), out(bytes + 16), dscale(channels * 4), dbias(channels * 4), mean(channels * 4),
      inv(channels * 4);
  HF_REQUIRE_HIP(hipMemcpy(dscale.data(), scale.data(), channels * 4, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemcpy(dbias.data(), bias.data(), channels * 4, hipMemcpyHostToDevice));
  auto run = [&](std::size_t shift, std::vector<float>& y, std::vector<float>& saved_mean, std::vector<float>& saved_inv) {
    char* x_at = static_cast<char*>(in.data()) + shift;
    char* y_at = static_cast<char*>(out.data()) + shift;
    HF_REQUIRE_HIP(hipMemcpy(x_at, host.data(), bytes, hipMemcpyHostToDevice));
    BatchNormForwardTrainingArgs bn;
    bn.scale = dscale.data();
    bn.bias = dbias.data();
    bn.saved_mean = mean.data();
    bn.saved_inv_variance = inv.data();
    bn.epsilon = 1e-5;
    OperatorArgs args;
    args.slots = {bn, ActivationForwardArgs{0, 0, 0}};
    HF_REQUIRE_HIP(plan->invoker().launch(nullptr, x_at, y_at, args));
    HF_REQUIRE_HIP(hipDeviceSynchronize());
    y.resize(n);
    saved_mean.resize(channels);
    saved_inv.resize(channels);
    HF_REQUIRE_HIP(hipMemcpy(y.data(), y_at, bytes, hipMemcpyDeviceToHost));
    HF_REQUIRE_HIP(hipMemcpy(saved_mean.data(), mean.data(), channels * 4, hipMemcpyDeviceToHost));
    HF_REQUIRE_HIP(hipMemcpy(saved_inv.data(), inv.data(), channels * 4, hipMemcpyDeviceToHost));
  };
  std::vector<float> y_vector, mean_vector, inv_vector, y_scalar, mean_scalar, inv_scalar;
  run(0, y_vector, mean_vector, inv_vector);
  run(4, y_scalar, mean_scalar, inv_scalar);
  for (std::size_t c = 0; c < channels; ++c) {
    CAPTURE(c);
    CHECK(std::abs(mean_vector[c] - mean_scalar[c]) <= 1e-6f);
    CHECK(std::abs(inv_vector[c] - inv_scalar[c]) <= 1e-6f * inv_vector[c]);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(std::abs(y_vector[i] - y_scalar[i]) <= 1e-5f * (1.0f + std::abs(y_vector[i])))) ++wrong;
  }
  CHECK(wrong == 0);
  CHECK(out.guard_intact());
}

}  // namespace

TEST_CASE("fused BN training: pointers off 16-byte alignment take the scalar walk, same results") {
  // Layouts the 16-byte walks take (planes of 3136: vectors along the plane, merged partials;
  // planes of 49: plane groups); the second run moves x and y 4 bytes off alignment, so the
  // kernel must walk element by element. Both runs see the same data; only the fp32
  // summation order differs.
  SUBCASE("vectors along the plane") { check_misaligned_walk({8, 64, 56, 56}); }
  SUBCASE("plane groups") { check_misaligned_walk({16, 256, 7, 7}); }
  // Layouts where aligned pointers take the held walk (one partial, part in shared memory).
  SUBCASE("held plane groups") { check_misaligned_walk({64, 2048, 7, 7}); }
  SUBCASE("held vectors along the plane") { check_misaligned_walk({40, 1024, 14, 14}); }
  // The exchange of partial moments: the scalar walk reads x again to normalise.
  SUBCASE("exchange") { check_misaligned_walk({32, 64, 112, 112}); }
  // Persistent blocks: the scalar walk reads x again to normalise, a column after another.
  SUBCASE("persistent") { check_misaligned_walk({40, 600, 30, 30}); }
}
