// Execute is capture-safe: an invoker launch recorded in a HIP graph replays correctly,
// for a single-launch family (conv) and multi-launch ones (BN training with partials, a
// convolution after its input's re-layout), whose later launches start early where the
// device can (rt::launch_kernel).
#include "gpu/test_fused_support.h"

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

void capture_and_replay(std::unique_ptr<FusionPlan> plan, std::uint64_t seed, int launches = 0) {
  FusedCase c(std::move(plan), seed, 1.0);
  c.compile();
  if (launches > 0) REQUIRE(c.invoker().kernel_launches() == launches);
  const auto launch = [&](hipStream_t stream) {
    return c.invoker().launch(stream, c.input().data(), c.output().data(), c.args());
  };
  replay_from_graph(launch, 3, [&] { c.poison_outputs(); }, [&] { c.check(); });
}

}  // namespace

TEST_CASE("fused graph capture: CBNA replays from a HIP graph") {
  capture_and_replay(row_plan(Row::cbna, DataType::half, Lay::nhwc, {2, 8, 10, 10}, {}, BatchNormMode::spatial,
                              ActivationMode::relu),
                     4000);
}

TEST_CASE("fused graph capture: BN training (partials exchanged in one launch, or three launches) and BN backward replay from a HIP graph") {
  // NCHW planes larger than the L2: one launch whose counters must be back at zero for each replay.
  capture_and_replay(PlanBuilder(DataType::float32, {32, 64, 112, 112}, Lay::nchw).bn_train(BatchNormMode::spatial, true)
                         .act(ActivationMode::relu).take(),
                     4001, 1);
  // Channels-last: reduce, finalize and apply launches.
  capture_and_replay(PlanBuilder(DataType::half, {64, 3, 40, 40}, Lay::nhwc).bn_train(BatchNormMode::spatial, true)
                         .act(ActivationMode::relu).take(),
                     4004, 3);
  capture_and_replay(PlanBuilder(DataType::float32, {64, 3, 40, 40}, Lay::nhwc).bn_backward(BatchNormMode::spatial)
                         .act_backward(ActivationMode::elu).take(),
                     4002);
}

TEST_CASE("fused graph capture: an NCHW convolution after its input's re-layout replays from a HIP graph") {
  ConvGeometry g;
  g.k = 64;
  // fp16 NCHW 3x3: the input and the weights re-laid out in one launch, then the GEMM.
  capture_and_replay(row_plan(Row::cba, DataType::half, Lay::nchw, {4, 64, 20, 20}, g, BatchNormMode::spatial,
                              ActivationMode::relu),
                     4003, 2);
}
