// Every solver on plans of extreme sizes: lengths, pads, strides, dilations and filters drawn
// from the edges of int (1, powers of two up to 2^30, 2^31-1) in every op family, planned
// offline for three architectures and four multiprocessor counts. The byte fuzzer reaches
// such plans rarely (a plan needs several calls with matching values); here thousands are
// built directly. What must hold: applicability gives a reason when it refuses, and an
// accepted plan's kernels are specified (or refused with a hipfuse error) without any other
// exception. Signed overflow in the size arithmetic is caught where it matters most, in the
// sanitizer build (UBSan), which runs this test too.
#include <doctest/doctest.h>

#include "common/error.h"
#include "plan/fusion_plan.h"
#include "runtime/kernel_compiler.h"
#include "solvers/solver.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace hipfuse;

namespace {

class ExtremePlans {
 public:
  explicit ExtremePlans(std::uint64_t seed) : rng_(seed) {}

  // A random plan of one family, or nullptr when its values are invalid (the plan refused them).
  std::unique_ptr<FusionPlan> next() {
    const DataType type = pick({DataType::half, DataType::float32, DataType::bfloat16, DataType::half, DataType::int8});
    const bool five = rng_() % 6 == 0;
    const bool channels_last = rng_() % 2 == 0;
    const Layout layout = five ? (channels_last ? Layout::ndhwc : Layout::ncdhw) : (channels_last ? Layout::nhwc : Layout::nchw);
    std::vector<std::int64_t> lengths;
    for (int d = 0; d < (five ? 5 : 4); ++d) lengths.push_back(length());
    try {
      auto plan = std::make_unique<FusionPlan>(FusionDirection::vertical, TensorDesc::packed(type, lengths, layout));
      switch (rng_() % 8) {  // half of the plans convolve: the most size arithmetic is there
        case 0: add_bn_inference(*plan); break;
        case 1: plan->add(BatchNormForwardTrainingOp{bn_mode(), rng_() % 2 == 0}); break;
        case 2:
          plan->add(BatchNormBackwardOp{bn_mode()});
          if (rng_() % 2 == 0) plan->add(ActivationBackwardOp{activation()});
          return plan;
        case 3: plan->add(ResidualAddOp{plan->output()}); break;
        default: add_conv(*plan, type, layout, five); break;
      }
      if (rng_() % 3 != 0) plan->add(ActivationForwardOp{activation()});
      return plan;
    } catch (const Error&) {
      return nullptr;  // lengths or geometry the plan refuses (too large, channels mismatch...)
    }
  }

 private:
  template <typename T>
  T pick(std::initializer_list<T> values) {
    return values.begin()[rng_() % values.size()];
  }
  std::int64_t length() {
    return pick<std::int64_t>({1, 1, 2, 3, 7, 8, 14, 17, 56, 64, 255, 256, 4096, 46341, 65535, 65536, 1 << 20, 1 << 24,
                               1 << 30, INT_MAX});
  }
  int geometry(std::initializer_list<int> usual) {
    return rng_() % 4 == 0 ? pick<int>({1 << 20, INT_MAX}) : pick<int>(usual);
  }
  BatchNormMode bn_mode() { return rng_() % 2 ? BatchNormMode::spatial : BatchNormMode::per_activation; }
  ActivationMode activation() { return static_cast<ActivationMode>(rng_() % 10); }

  void add_conv(FusionPlan& plan, DataType type, Layout layout, bool five) {
    const int spatial = five ? 3 : 2;
    ConvDesc conv;
    conv.pads = conv.strides = conv.dilations = std::vector<int>(static_cast<std::size_t>(spatial));
    for (int d = 0; d < spatial; ++d) {
      conv.pads[d] = geometry({0, 0, 1, 3});
      conv.strides[d] = geometry({1, 1, 2, 4});
      conv.dilations[d] = geometry({1, 1, 2, 3});
    }
    const std::int64_t channels = plan.output().lengths[1];
    conv.groups = static_cast<int>(std::min<std::int64_t>(pick<std::int64_t>({1, 1, 2, channels}), INT_MAX));
    std::vector<std::int64_t> w{pick<std::int64_t>({1, 8, 64, 256, 65536, 1 << 24, INT_MAX}), channels / conv.groups};
    for (int d = 0; d < spatial; ++d) w.push_back(pick<std::int64_t>({1, 1, 3, 7, 2, 65536, INT_MAX}));
    plan.add(ConvForwardOp{conv, TensorDesc::packed(type, w, layout)});
    if (rng_() % 2 == 0) {
      std::vector<std::int64_t> bias(w.size(), 1);
      bias[1] = w[0];
      plan.add(BiasForwardOp{TensorDesc::packed(type, bias, five ? Layout::ncdhw : Layout::nchw)});
    }
    if (rng_() % 2 == 0) add_bn_inference(plan);
  }

  void add_bn_inference(FusionPlan& plan) {
    const BatchNormMode mode = bn_mode();
    plan.add(BatchNormInferenceOp{mode, batch_norm_params(plan.output(), mode)});
  }

  std::mt19937_64 rng_;
};

// Plans `plan` offline for `target` as compile would (the first solver that applies), checking
// that each refusal on the way gives a reason; returns whether a solver took the plan.
bool plan_offline(const FusionPlan& plan, const Target& target) {
  for (const Solver* solver : solver_registry()) {
    CAPTURE(solver->name());
    const Applicability a = solver->applies(plan, target);
    if (!a.applies) {
      CHECK_FALSE(a.reason.empty());
      continue;
    }
    try {
      for (const auto& request : solver->kernels(plan, target)) {
        CHECK_FALSE(request.entry.empty());
        (void)rt::KernelCompiler::instance().key_for(request, target.arch, target.warp_size);
      }
    } catch (const Error& e) {
      CHECK(std::string(e.what()).size() > 0);  // refused with a reason: fine
    }
    return true;
  }
  return false;
}

}  // namespace

TEST_CASE("reliability: every solver plans extreme sizes with a reason or kernels, never another exception") {
  // HIPFUSE_EXTREME_PLANS=N: a longer search than CI's (the draws are the same, then more).
  const char* count = std::getenv("HIPFUSE_EXTREME_PLANS");
  const int wanted = count != nullptr ? std::max(3000, std::atoi(count)) : 3000;
  ExtremePlans plans(20261206);
  int built = 0, accepted = 0;
  for (int i = 0; i < 4 * wanted && built < wanted; ++i) {
    const auto plan = plans.next();
    if (!plan) continue;
    ++built;
    CAPTURE(plan->key());
    for (const char* arch : {"sm_90", "sm_80", "sm_100"}) {
      for (const int multiprocessors : {0, 1, 7, 132}) {
        Target target;
        target.arch = arch;
        target.multiprocessors = multiprocessors;
        CAPTURE(arch);
        CAPTURE(multiprocessors);
        if (plan_offline(*plan, target)) ++accepted;
      }
    }
  }
  // Enough draws are valid plans, and solvers take a good share of them (each plan is tried
  // on 12 targets).
  CHECK(built == wanted);
  CHECK(accepted > built * 4);
}
