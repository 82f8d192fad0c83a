// hipRTC compiles every kernel variant for sm_90 without a GPU: each family x data type x
// layout x representative op chains, all ten activation modes forward and backward, both
// BN modes, one- and multi-partial BN tilings, 3-D, groups, strided and >2^31-element
// tensors. A fresh disk cache makes every compile real; two threads share the work.
#include <doctest/doctest.h>

#include "runtime/kernel_compiler.h"
#include "solvers/solver.h"
#include "unit/test_reliability_support.h"  // TempDir, CacheAt
#include "unit/test_solver_plans.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

Target sm90() {
  Target t;
  t.arch = "sm_90";
  return t;
}

struct Variant {
  std::string name;
  std::unique_ptr<FusionPlan> plan;
};

// The family a variant exercises: the one its op kinds belong to (the implicit-GEMM family,
// which goes first in the registry for some convolutions, has its own compile tests).
const Solver& family_of(const FusionPlan& plan) {
  const Op& first = plan.ops().front()->op;
  std::string name = "ConvDirectFused";
  if (std::holds_alternative<BatchNormForwardTrainingOp>(first)) name = "BnForwardTrainingFused";
  if (std::holds_alternative<BatchNormBackwardOp>(first)) name = "BnBackwardFused";
  bool has_conv = false;
  for (const auto& op : plan.ops()) has_conv = has_conv || std::holds_alternative<ConvForwardOp>(op->op);
  if (!has_conv && name == "ConvDirectFused") name = "PointwiseChain";
  for (const Solver* s : solver_registry()) {
    if (name == s->name()) return *s;
  }
  throw std::logic_error("no family " + name);
}

ActivationMode mode(int i) { return static_cast<ActivationMode>(i % kActivationModeCount); }

std::string label(const char* what, DataType t, Lay l) {
  return std::string(what) + " " + name_of(t) + " " + name_of(l);
}

// The MIOpen rows with a convolution, every data type and layout; activations rotate.
void conv_rows(std::vector<Variant>& out) {
  int i = 0;
  for (DataType t : kAllTypes) {
    for (Lay l : kAllLayouts) {
      out.push_back({label("CBNA spatial", t, l),
                     row_plan(Row::cbna, t, l, {2, 6, 9, 9}, {}, BatchNormMode::spatial, mode(i++))});
      out.push_back({label("CNA per-activation", t, l),
                     row_plan(Row::cna, t, l, {2, 6, 9, 9}, {}, BatchNormMode::per_activation, mode(i++))});
    }
  }
  const Row others[] = {Row::c, Row::cb, Row::ca, Row::cba, Row::cn};
  for (Row r : others) {
    const DataType t = kAllTypes[i % 3];
    const Lay l = kAllLayouts[i % 2];
    out.push_back({label(name_of(r), t, l), row_plan(r, t, l, {1, 5, 7, 7}, {}, BatchNormMode::spatial, mode(i++))});
  }
}

// Geometry the rows do not reach: prologues, groups, depthwise, 3-D, 1x1, big filters,
// dilation, odd tails, non-packed input, 64-bit offsets.
void conv_geometry(std::vector<Variant>& out) {
  for (DataType t : kAllTypes) {
    PlanBuilder b(t, {2, 8, 10, 10}, t == DataType::half ? Lay::nhwc : Lay::nchw);
    b.bn_infer(BatchNormMode::spatial).act(ActivationMode::relu).conv({}).bias().residual();
    out.push_back({label("prologue BN+ReLU, conv, bias, residual", t, Lay::nchw), b.take()});
  }
  // 1x1 NCHW of 512 output channels (16-bit), with and without a prologue.
  ConvGeometry pointwise512;
  pointwise512.k = 512;
  pointwise512.filter = {1, 1};
  pointwise512.pads = {0, 0};
  for (DataType t : {DataType::half, DataType::bfloat16}) {
    out.push_back({label("1x1 N 512", t, Lay::nchw),
                   PlanBuilder(t, {2, 64, 7, 7}, Lay::nchw).conv(pointwise512).bias().act(ActivationMode::relu).take()});
    PlanBuilder pre(t, {2, 64, 7, 7}, Lay::nchw);
    pre.bn_infer(BatchNormMode::spatial).act(ActivationMode::relu).conv(pointwise512).bias();
    out.push_back({label("prologue BN+ReLU, 1x1 N 512", t, Lay::nchw), pre.take()});
  }
  // Three input channels and a 7-wide filter: folded into the channels (16-bit), with a prologue.
  ConvGeometry stem;
  stem.k = 16;
  stem.filter = {7, 7};
  stem.pads = {3, 3};
  stem.strides = {2, 2};
  for (DataType t : {DataType::half, DataType::bfloat16}) {
    PlanBuilder pre(t, {2, 3, 20, 20}, t == DataType::half ? Lay::nchw : Lay::nhwc);
    pre.bn_infer(BatchNormMode::spatial).act(ActivationMode::relu).conv(stem).bias();
    out.push_back({label("prologue BN+ReLU, 7x7/2 on 3 channels (width folded)", t, t == DataType::half ? Lay::nchw : Lay::nhwc),
                   pre.take()});
  }
  ConvGeometry dw;
  dw.k = 16;
  dw.groups = 16;
  out.push_back({"depthwise 3x3 fp16 nhwc", PlanBuilder(DataType::half, {2, 16, 12, 12}, Lay::nhwc).conv(dw).bias().take()});
  ConvGeometry grouped;
  grouped.k = 12;
  grouped.groups = 3;
  grouped.filter = {5, 3};
  grouped.pads = {2, 0};
  grouped.strides = {2, 1};
  out.push_back({"grouped 5x3 stride 2x1 bf16 nchw",
                 PlanBuilder(DataType::bfloat16, {3, 9, 11, 13}, Lay::nchw).conv(grouped).act(ActivationMode::elu).take()});
  ConvGeometry c3;
  c3.filter = {3, 3, 3};
  c3.pads = {1, 1, 1};
  c3.strides = {2, 2, 2};
  c3.dilations = {1, 2, 1};
  out.push_back({"3-D fp32 ndhwc", PlanBuilder(DataType::float32, {1, 3, 6, 7, 8}, Lay::nhwc).conv(c3).bias().take()});
  out.push_back({"3-D fp16 ncdhw per-activation BN",
                 PlanBuilder(DataType::half, {1, 3, 6, 7, 8}, Lay::nchw).conv(c3).bn_infer(BatchNormMode::per_activation).take()});
  ConvGeometry one;
  one.k = 64;
  one.filter = {1, 1};
  one.pads = {0, 0};
  out.push_back({"1x1 K=64 fp16 nhwc", PlanBuilder(DataType::half, {4, 32, 14, 14}, Lay::nhwc).conv(one).bias().act(ActivationMode::relu).take()});
  ConvGeometry big;
  big.k = 3;
  big.filter = {11, 11};
  big.pads = {5, 5};
  big.strides = {4, 4};
  out.push_back({"11x11 stride 4 K=3 fp32 nchw", PlanBuilder(DataType::float32, {1, 3, 32, 32}, Lay::nchw).conv(big).take()});
  ConvGeometry dil;
  dil.k = 7;
  dil.dilations = {2, 3};
  dil.pads = {2, 3};
  out.push_back({"dilated, odd K bf16 nhwc", PlanBuilder(DataType::bfloat16, {2, 5, 9, 9}, Lay::nhwc).conv(dil).take()});
  TensorDesc strided = packed(DataType::float32, {2, 4, 8, 8}, Lay::nchw);
  strided.strides = {600, 150, 16, 2};  // gaps between rows, channels and images
  out.push_back({"non-packed input fp32", PlanBuilder(strided, Lay::nchw).conv({}).bias().take()});
  ConvGeometry wide;
  wide.k = 2;
  wide.filter = {1, 1};
  wide.pads = {0, 0};
  out.push_back({">2^31-element input fp16 (64-bit offsets)",
                 PlanBuilder(DataType::half, {1, 2, 40000, 30000}, Lay::nchw).conv(wide).take()});
}

void pointwise(std::vector<Variant>& out) {
  int i = 3;
  for (DataType t : kAllTypes) {
    for (Lay l : kAllLayouts) {
      out.push_back({label("NA inference spatial", t, l),
                     row_plan(Row::na_infer, t, l, {2, 6, 9, 8}, {}, BatchNormMode::spatial, mode(i++))});
      out.push_back({label("NA inference per-activation", t, l),
                     row_plan(Row::na_infer, t, l, {2, 6, 9, 8}, {}, BatchNormMode::per_activation, mode(i++))});
      PlanBuilder b(t, {2, 6, 9, 8}, l);
      b.bias().residual().act(mode(i++)).bn_infer(BatchNormMode::spatial);
      out.push_back({label("bias, residual, activation, BN", t, l), b.take()});
    }
  }
  // All ten forward activations in two chains.
  PlanBuilder a(DataType::float32, {2, 3, 4, 4}, Lay::nchw), b(DataType::float32, {2, 3, 4, 4}, Lay::nchw);
  for (int m = 0; m < 5; ++m) a.act(mode(m));
  for (int m = 5; m < 10; ++m) b.act(mode(m));
  out.push_back({"activations 0-4", a.take()});
  out.push_back({"activations 5-9", b.take()});
  TensorDesc strided = packed(DataType::half, {2, 3, 5, 5}, Lay::nhwc);
  strided.strides = {100, 1, 20, 4};  // channel padding: C=3 in a stride-4 slot
  out.push_back({"non-packed nhwc fp16", PlanBuilder(strided, Lay::nhwc).act(ActivationMode::relu).take()});
  out.push_back({"5-D bf16 ndhwc", PlanBuilder(DataType::bfloat16, {2, 3, 4, 5, 6}, Lay::nhwc).bias().act(ActivationMode::tanh).take()});
  out.push_back({">2^31 elements fp16", PlanBuilder(DataType::half, {2, 64, 4096, 4100}, Lay::nchw).bias().act(ActivationMode::relu).take()});
}

// Shapes chosen for one partial (many columns) and several (few columns, many rows).
void bn_training(std::vector<Variant>& out) {
  int i = 0;
  for (DataType t : kAllTypes) {
    for (Lay l : kAllLayouts) {
      const bool running = i % 2 == 0;
      PlanBuilder s(t, {8, 4, 32, 32}, l);
      s.bn_train(BatchNormMode::spatial, running).act(mode(i++));
      out.push_back({label("NA training spatial, few channels", t, l), s.take()});
      PlanBuilder p(t, {2, 64, 16, 16}, l);
      p.bn_train(BatchNormMode::per_activation, !running).act(mode(i++));
      out.push_back({label("NA training per-activation", t, l), p.take()});
    }
  }
  PlanBuilder many(DataType::half, {2, 4096, 4, 4}, Lay::nchw);
  many.bn_train(BatchNormMode::spatial, true);
  out.push_back({"BN training alone, one partial", many.take()});
  PlanBuilder chain(DataType::bfloat16, {4, 8, 6, 6}, Lay::nhwc);
  chain.bn_train(BatchNormMode::spatial, true).residual().act(ActivationMode::relu);
  out.push_back({"BN training, residual, ReLU", chain.take()});
  // Plane groups (planes 16-byte vectors do not tile): one partial, and several with a
  // residual reading the group's coordinates.
  for (DataType t : kAllTypes) {
    PlanBuilder one(t, {4, 1024, 7, 7}, Lay::nchw);
    one.bn_train(BatchNormMode::spatial, true).act(mode(i++));
    out.push_back({label("NA training, plane groups, one partial", t, Lay::nchw), one.take()});
    PlanBuilder several(t, {64, 16, 5, 5}, Lay::nchw);
    several.bn_train(BatchNormMode::spatial, false).residual().act(mode(i++));
    out.push_back({label("NA training, plane groups, partials", t, Lay::nchw), several.take()});
    // x larger than the L2: the partials exchange their moments in one launch.
    const bool running = i % 2 == 0;
    PlanBuilder exchange(t, {64, 64, 112, 112}, Lay::nchw);
    exchange.bn_train(BatchNormMode::spatial, running).act(mode(i++));
    out.push_back({label("NA training, partials exchanged", t, Lay::nchw), exchange.take()});
    // Columns only a block of 1024 threads can hold: persistent blocks, one column after another.
    PlanBuilder persistent(t, {64, 512, 28, 28}, Lay::nchw);
    persistent.bn_train(BatchNormMode::spatial, !running).act(mode(i++));
    out.push_back({label("NA training, persistent blocks", t, Lay::nchw), persistent.take()});
  }
}

void bn_backward(std::vector<Variant>& out) {
  int i = 0;
  for (DataType t : kAllTypes) {
    for (Lay l : kAllLayouts) {
      PlanBuilder s(t, {8, 4, 32, 32}, l);
      s.bn_backward(BatchNormMode::spatial).act_backward(mode(i++));
      out.push_back({label("NA backward spatial", t, l), s.take()});
      PlanBuilder p(t, {2, 64, 16, 16}, l);
      p.bn_backward(BatchNormMode::per_activation).act_backward(mode(i++));
      out.push_back({label("NA backward per-activation", t, l), p.take()});
    }
  }
  out.push_back({"BN backward alone", PlanBuilder(DataType::float32, {2, 4096, 4, 4}, Lay::nhwc)
                                          .bn_backward(BatchNormMode::spatial).take()});
}

}  // namespace

TEST_CASE("hipRTC compiles every kernel variant for sm_90") {
  std::vector<Variant> variants;
  conv_rows(variants);
  conv_geometry(variants);
  pointwise(variants);
  bn_training(variants);
  bn_backward(variants);

  auto& compiler = rt::KernelCompiler::instance();
  const reliability::TempDir cache_dir("hipfuse-solver-compile-test");
  const reliability::CacheAt fresh(cache_dir.path());  // caches within the test only; counts reset

  std::vector<std::pair<std::string, rt::KernelRequest>> requests;
  for (const auto& v : variants) {
    const Solver& solver = family_of(*v.plan);
    CAPTURE(v.name);
    REQUIRE(solver.applies(*v.plan, sm90()).applies);
    for (auto& r : solver.kernels(*v.plan, sm90())) requests.emplace_back(v.name, std::move(r));
  }

  const auto start = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0};
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  auto work = [&] {
    for (std::size_t i = next++; i < requests.size(); i = next++) {
      try {
        auto code = compiler.binary(requests[i].second, "sm_90", 32);
        const std::string ptx(code.begin(), code.end());
        if (ptx.find(requests[i].second.entry) == std::string::npos) throw std::runtime_error("entry missing");
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(failures_mutex);
        failures.push_back(requests[i].first + ": " + e.what());
      }
    }
  };
  std::thread helper(work);
  work();
  helper.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (const auto& f : failures) FAIL_CHECK(f);
  CHECK(compiler.stats().compiles == requests.size());
  MESSAGE(requests.size() << " kernel variants from " << variants.size() << " plans compiled for sm_90 in " << seconds
                          << " s (2 threads)");
}
