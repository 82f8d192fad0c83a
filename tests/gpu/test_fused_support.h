// What the fused-kernel GPU tests share: a FusedCase turns a plan into random device data,
// operator arguments and the matching CPU reference chain (hipfuse_reference), compiles it
// for GPU 0, runs it with poisoned outputs and guard bytes, and checks every output.
#pragma once

#include <doctest/doctest.h>

#include "hipfuse/reference/chain.h"
#include "hipfuse/reference/compare.h"
#include "hipfuse/reference/fill.h"
#include "plan/fusion_plan.h"
#include "runtime/platform.h"
#include "solvers/solver.h"
#include "unit/test_solver_plans.h"

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace hipfuse::test {

#define HF_REQUIRE_HIP(call) REQUIRE_MESSAGE((call) == hipSuccess, #call)

inline ref::DType ref_type(DataType t) {
  switch (t) {
    case DataType::half: return ref::DType::f16;
    case DataType::bfloat16: return ref::DType::bf16;
    default: return ref::DType::f32;
  }
}

inline Target device_target() {
  const rt::DeviceInfo info = rt::device_info(0);
  Target t;
  t.device = 0;
  t.arch = info.arch;
  t.warp_size = info.warp_size;
  t.multiprocessors = info.multiprocessors;
  t.l2_bytes = info.l2_bytes;
  t.shared_per_block = info.shared_per_block_optin;
  return t;
}

// Device memory followed by guard bytes that no kernel may touch.
class DeviceBuffer {
 public:
  static constexpr std::size_t kGuard = 4096;
  static constexpr unsigned char kGuardByte = 0xA5;

  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    HF_REQUIRE_HIP(hipMalloc(&data_, bytes + kGuard));
    HF_REQUIRE_HIP(hipMemset(static_cast<char*>(data_) + bytes, kGuardByte, kGuard));
  }
  ~DeviceBuffer() { (void)hipFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  void write(const std::vector<unsigned char>& host) {
    REQUIRE(host.size() == bytes_);
    HF_REQUIRE_HIP(hipMemcpy(data_, host.data(), bytes_, hipMemcpyHostToDevice));
  }
  std::vector<unsigned char> read() const {
    std::vector<unsigned char> host(bytes_);
    HF_REQUIRE_HIP(hipMemcpy(host.data(), data_, bytes_, hipMemcpyDeviceToHost));
    return host;
  }
  bool guard_intact() const {
    std::vector<unsigned char> guard(kGuard);
    HF_REQUIRE_HIP(hipMemcpy(guard.data(), static_cast<char*>(data_) + bytes_, kGuard, hipMemcpyDeviceToHost));
    for (unsigned char b : guard) {
      if (b != kGuardByte) return false;
    }
    return true;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

// A tensor on the device in a descriptor's layout, with its logical host copy.
struct DeviceTensor {
  TensorDesc desc;
  ref::Tensor host;
  DeviceBuffer buffer;

  DeviceTensor(TensorDesc d, ref::Tensor h)
      : desc(std::move(d)), host(std::move(h)), buffer(static_cast<std::size_t>(desc.span()) * size_of(desc.type)) {
    upload();
  }
  // Poison everywhere, then the host values at their strided places.
  void upload() {
    std::vector<unsigned char> bytes(buffer.bytes());
    ref::write_poison(ref_type(desc.type), bytes.data(), desc.span());
    ref::to_storage(host, ref_type(desc.type), desc.strides, bytes.data());
    buffer.write(bytes);
  }
  void poison() {
    std::vector<unsigned char> bytes(buffer.bytes());
    ref::write_poison(ref_type(desc.type), bytes.data(), desc.span());
    buffer.write(bytes);
  }
  ref::Tensor download() const {
    return ref::from_storage(buffer.read().data(), ref_type(desc.type), desc.lengths, desc.strides);
  }
  // Elements still holding the poison (unwritten by the kernel), counted logically.
  std::int64_t unwritten() const {
    const auto bytes = buffer.read();
    const std::size_t size = size_of(desc.type);
    std::int64_t count = 0;
    const ref::Tensor probe = ref::make_tensor(desc.lengths);
    for (std::int64_t i = 0; i < probe.numel(); ++i) {
      const auto index = ref::multi_index(desc.lengths, i);
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * desc.strides[d];
      count += ref::is_poison(ref_type(desc.type), bytes.data() + static_cast<std::size_t>(offset) * size) ? 1 : 0;
    }
    return count;
  }
  void* data() const { return buffer.data(); }
};

inline ref::Tensor random_tensor(std::vector<std::int64_t> lengths, double mean, double stddev, std::uint64_t seed,
                                 DataType type) {
  ref::Tensor t = ref::make_tensor(std::move(lengths));
  ref::fill_normal(t, mean, stddev, seed, ref_type(type));
  return t;
}

inline ref::Tensor uniform_tensor(std::vector<std::int64_t> lengths, double lo, double hi, std::uint64_t seed,
                                  DataType type) {
  ref::Tensor t = ref::make_tensor(std::move(lengths));
  ref::fill_uniform(t, lo, hi, seed, ref_type(type));
  return t;
}

// Activation parameters that keep each mode in an interesting range for inputs ~N(0, 1).
struct ActivationParams {
  double alpha, beta, gamma;
};
inline ActivationParams params_for(ActivationMode mode) {
  switch (mode) {
    case ActivationMode::tanh: return {0.8, 1.25, 1.0};
    case ActivationMode::power: return {2.0, 0.5, 1.5};
    case ActivationMode::clippedrelu: return {1.25, 0.0, 0.0};
    case ActivationMode::leakyrelu: return {0.125, 0.0, 0.0};
    case ActivationMode::elu: return {0.75, 0.0, 0.0};
    default: return {1.0, 0.0, 1.0};
  }
}

// An output the case checks besides y: the device tensor and the reference tensor it
// must match (owned by the reference op), with the reduction length behind each value.
struct SideOutput {
  std::string name;
  DeviceTensor* device;
  const ref::Tensor* expected;
  std::int64_t reduction;
};

class FusedCase {
 public:
  FusedCase(std::unique_ptr<FusionPlan> plan, std::uint64_t seed, double input_mean = 0.0)
      : plan_(std::move(plan)), seed_(seed) {
    const TensorDesc& in = plan_->input();
    input_ = tensor(in, random_tensor(in.lengths, input_mean, 1.0, next_seed(), in.type));
    output_ = tensor(plan_->output(), ref::make_tensor(plan_->output().lengths));
    args_.slots.resize(static_cast<std::size_t>(plan_->op_count()));
    ref_ops_.reserve(args_.slots.size());  // side_ points into it: no reallocation
    for (const auto& op : plan_->ops()) std::visit([&](const auto& o) { materialize(*op, o); }, op->op);
  }

  FusionPlan& plan() { return *plan_; }
  // Sets the convolution's alpha (the one-shot API's alpha1) in the arguments and the reference.
  void set_conv_alpha(double alpha) {
    for (std::size_t i = 0; i < args_.slots.size(); ++i) {
      if (auto* conv = std::get_if<ConvForwardArgs>(&args_.slots[i])) conv->alpha = alpha;
      if (auto* conv = std::get_if<ref::ConvOp>(&ref_ops_[i])) conv->alpha = alpha;
    }
    reference_done_ = false;
  }
  const OperatorArgs& args() const { return args_; }
  DeviceTensor& input() { return *input_; }
  DeviceTensor& output() { return *output_; }

  // Through the registry (what Compile does), or with one family when `family` is given,
  // so that a family is tested on plans an earlier family would take.
  void compile(const Solver* family = nullptr) {
    if (family == nullptr) {
      plan_->compile(device_target());
      invoker_ = &plan_->invoker();
      return;
    }
    REQUIRE_MESSAGE(family->applies(*plan_, device_target()).applies, family->name());
    std::vector<rt::CompileReport> reports;
    own_invoker_ = family->build(*plan_, device_target(), reports);
    invoker_ = own_invoker_.get();
  }
  const Invoker& invoker() const { return *invoker_; }

  // Poisons every output, launches on `stream` and waits.
  void run(hipStream_t stream = nullptr) {
    poison_outputs();
    HF_REQUIRE_HIP(invoker_->launch(stream, input_->data(), output_->data(), args_));
    HF_REQUIRE_HIP(hipStreamSynchronize(stream));
  }
  void poison_outputs() {
    output_->poison();
    for (auto& s : side_) s.device->poison();
    reset_running_stats();
  }

  // Runs the reference chain (once) and compares every output. `y_extra_nrms` widens y's
  // tolerance where the test's data costs more than the default model allows.
  void check(double y_extra_nrms = 0.0) {
    if (!reference_done_) {
      expected_ = ref::run_chain(input_->host, ref_ops_);
      ref::round_all(expected_, ref_type(plan_->output().type));
      reference_done_ = true;
    }
    check_tensor("y", *output_, expected_, reduction_, y_extra_nrms);
    for (auto& s : side_) {
      ref::Tensor e = *s.expected;
      ref::round_all(e, ref::DType::f32);
      check_tensor(s.name, *s.device, e, s.reduction);
    }
  }

 private:
  std::uint64_t next_seed() { return seed_ * 1000003u + counter_++; }

  DeviceTensor* tensor(const TensorDesc& desc, ref::Tensor host) {
    owned_.push_back(std::make_unique<DeviceTensor>(desc, std::move(host)));
    return owned_.back().get();
  }
  // A packed fp32 parameter tensor (BN parameters and statistics).
  DeviceTensor* param(const std::vector<std::int64_t>& lengths, ref::Tensor host) {
    return tensor(TensorDesc::packed(DataType::float32, lengths, Layout::nchw), std::move(host));
  }
  std::vector<std::int64_t> bn_param_lengths(const TensorDesc& x, BatchNormMode mode) const {
    return ref::bn_param_lengths(x.lengths, static_cast<ref::BnMode>(mode));
  }
  void set(const FusionOp& op, OpArgs a) { args_.slots[static_cast<std::size_t>(op.index)] = a; }

  void materialize(const FusionOp& op, const ConvForwardOp& c) {
    std::int64_t fan_in = 1;
    for (std::size_t d = 1; d < c.weights.lengths.size(); ++d) fan_in *= c.weights.lengths[d];
    DeviceTensor* w = tensor(c.weights, random_tensor(c.weights.lengths, 0.0, 1.0 / std::sqrt(double(fan_in)),
                                                      next_seed(), c.weights.type));
    set(op, ConvForwardArgs{w->data(), 1.0});
    ref::ConvGeometry g;
    for (std::size_t d = 0; d < c.conv.pads.size(); ++d) {
      g.pad.push_back(c.conv.pads[d]);
      g.stride.push_back(c.conv.strides[d]);
      g.dilation.push_back(c.conv.dilations[d]);
    }
    g.groups = c.conv.groups;
    ref_ops_.push_back(ref::ConvOp{w->host, g, 1.0});
    reduction_ = std::max(reduction_, fan_in);
  }
  void materialize(const FusionOp& op, const BiasForwardOp& b) {
    DeviceTensor* bias = tensor(b.bias, random_tensor(b.bias.lengths, 0.0, 0.5, next_seed(), b.bias.type));
    set(op, BiasForwardArgs{bias->data()});
    ref_ops_.push_back(ref::BiasOp{bias->host});
  }
  void materialize(const FusionOp& op, const ActivationForwardOp& a) {
    const ActivationParams p = params_for(a.mode);
    set(op, ActivationForwardArgs{p.alpha, p.beta, p.gamma});
    ref_ops_.push_back(ref::ActivationForwardOp{static_cast<ref::ActivationMode>(a.mode), p.alpha, p.beta, p.gamma});
  }
  void materialize(const FusionOp& op, const ResidualAddOp& r) {
    DeviceTensor* z = tensor(r.z, random_tensor(r.z.lengths, 0.0, 1.0, next_seed(), r.z.type));
    set(op, ResidualAddArgs{z->data(), 0.75});
    ref_ops_.push_back(ref::ResidualAddOp{z->host, 0.75});
  }
  void materialize(const FusionOp& op, const BatchNormInferenceOp& n) {
    const auto& l = n.params.lengths;
    DeviceTensor* scale = param(l, random_tensor(l, 1.0, 0.25, next_seed(), DataType::float32));
    DeviceTensor* bias = param(l, random_tensor(l, 0.0, 0.5, next_seed(), DataType::float32));
    DeviceTensor* mean = param(l, random_tensor(l, 0.0, 0.5, next_seed(), DataType::float32));
    DeviceTensor* var = param(l, uniform_tensor(l, 0.25, 2.0, next_seed(), DataType::float32));
    set(op, BatchNormInferenceArgs{scale->data(), bias->data(), mean->data(), var->data(), 1e-5});
    ref_ops_.push_back(ref::BnInferenceOp{static_cast<ref::BnMode>(n.mode), scale->host, bias->host, mean->host,
                                          var->host, 1e-5});
  }
  void materialize(const FusionOp& op, const BatchNormForwardTrainingOp& n) {
    const auto l = bn_param_lengths(op.input, n.mode);
    DeviceTensor* scale = param(l, random_tensor(l, 1.0, 0.25, next_seed(), DataType::float32));
    DeviceTensor* bias = param(l, random_tensor(l, 0.0, 0.5, next_seed(), DataType::float32));
    DeviceTensor* saved_mean = param(l, ref::make_tensor(l));
    DeviceTensor* saved_inv = param(l, ref::make_tensor(l));
    BatchNormForwardTrainingArgs a{scale->data(), bias->data(), saved_mean->data(), saved_inv->data(),
                                   nullptr, nullptr, 0.125, 1e-5};
    ref::BnForwardTrainingOp r{static_cast<ref::BnMode>(n.mode), scale->host, bias->host, 1e-5, 0.125, {}, {}, {}};
    if (n.running_stats) {
      running_mean_ = param(l, random_tensor(l, 0.0, 0.5, next_seed(), DataType::float32));
      running_var_ = param(l, uniform_tensor(l, 0.5, 1.5, next_seed(), DataType::float32));
      a.running_mean = running_mean_->data();
      a.running_variance = running_var_->data();
      r.running = ref::RunningStats{running_mean_->host, running_var_->host};
    }
    set(op, a);
    ref_ops_.push_back(r);
    auto& stored = std::get<ref::BnForwardTrainingOp>(ref_ops_.back());
    const std::int64_t m = op.input.element_count() / ref::element_count(l);
    side_.push_back({"saved mean", saved_mean, &stored.saved_mean, m});
    side_.push_back({"saved inverse variance", saved_inv, &stored.saved_inv_var, m});
    if (n.running_stats) {
      side_.push_back({"running mean", running_mean_, &stored.running->mean, m});
      side_.push_back({"running variance", running_var_, &stored.running->var, m});
    }
    reduction_ = std::max(reduction_, m);
  }
  void materialize(const FusionOp& op, const BatchNormBackwardOp& n) {
    const TensorDesc& x = op.input;
    const auto l = bn_param_lengths(x, n.mode);
    DeviceTensor* xt = tensor(x, random_tensor(x.lengths, 0.5, 1.5, next_seed(), x.type));
    DeviceTensor* scale = param(l, random_tensor(l, 1.0, 0.25, next_seed(), DataType::float32));
    DeviceTensor* bias = param(l, random_tensor(l, 0.0, 0.5, next_seed(), DataType::float32));
    DeviceTensor* mean = param(l, random_tensor(l, 0.5, 0.25, next_seed(), DataType::float32));
    DeviceTensor* inv = param(l, uniform_tensor(l, 0.5, 1.0, next_seed(), DataType::float32));
    DeviceTensor* dscale = param(l, ref::make_tensor(l));
    DeviceTensor* dbias = param(l, ref::make_tensor(l));
    set(op, BatchNormBackwardArgs{xt->data(), scale->data(), bias->data(), dscale->data(), dbias->data(), mean->data(),
                                  inv->data()});
    ref_ops_.push_back(ref::BnBackwardOp{static_cast<ref::BnMode>(n.mode), xt->host, scale->host, bias->host,
                                         mean->host, inv->host, {}, {}});
    auto& stored = std::get<ref::BnBackwardOp>(ref_ops_.back());
    const std::int64_t m = x.element_count() / ref::element_count(l);
    side_.push_back({"dscale", dscale, &stored.dscale, m});
    side_.push_back({"dbias", dbias, &stored.dbias, m});
    reduction_ = std::max(reduction_, m);
  }
  // y = the forward activation of the BN output z recomputed from the BN backward op's data.
  void materialize(const FusionOp& op, const ActivationBackwardOp& a) {
    const auto& bn = std::get<ref::BnBackwardOp>(ref_ops_.back());
    const ActivationParams p = params_for(a.mode);
    const auto mode = static_cast<ref::ActivationMode>(a.mode);
    ref::Tensor z = ref::bn_normalize(bn.x, bn.mode, bn.scale, bn.bias, bn.saved_mean, bn.saved_inv_var);
    ref::Tensor y = ref::activation_forward(z, mode, p.alpha, p.beta, p.gamma);
    ref::round_all(y, ref_type(op.input.type));
    DeviceTensor* yt = tensor(op.input, y);
    set(op, ActivationBackwardArgs{yt->data(), p.alpha, p.beta, p.gamma});
    ref_ops_.push_back(ref::ActivationBackwardOp{mode, p.alpha, p.beta, p.gamma, yt->host});
  }

  void reset_running_stats() {
    if (running_mean_ != nullptr) running_mean_->upload();
    if (running_var_ != nullptr) running_var_->upload();
  }

  void check_tensor(const std::string& name, const DeviceTensor& t, const ref::Tensor& expected,
                    std::int64_t reduction, double extra_nrms = 0.0) {
    CAPTURE(name);
    CAPTURE(plan_->key());
    CHECK(t.buffer.guard_intact());
    CHECK(t.unwritten() == 0);
    const ref::Tensor got = t.download();
    REQUIRE(got.numel() == expected.numel());
    ref::Tolerance tolerance = ref::default_tolerance(ref_type(t.desc.type), reduction);
    tolerance.nrms += extra_nrms;
    const ref::Verdict v = ref::compare(got.data.data(), expected.data.data(), got.numel(), tolerance);
    CHECK_MESSAGE(v.kind != ref::Verdict::failed, v.message);
  }

  std::unique_ptr<FusionPlan> plan_;
  const Invoker* invoker_ = nullptr;
  std::unique_ptr<Invoker> own_invoker_;
  std::uint64_t seed_;
  std::uint64_t counter_ = 0;
  std::vector<std::unique_ptr<DeviceTensor>> owned_;
  DeviceTensor* input_ = nullptr;
  DeviceTensor* output_ = nullptr;
  DeviceTensor* running_mean_ = nullptr;
  DeviceTensor* running_var_ = nullptr;
  OperatorArgs args_;
  std::vector<ref::Op> ref_ops_;
  std::vector<SideOutput> side_;
  std::int64_t reduction_ = 1;
  ref::Tensor expected_;
  bool reference_done_ = false;
};

// Compiles (through the registry, or with `family`), runs and checks a plan.
inline void run_and_check(std::unique_ptr<FusionPlan> plan, std::uint64_t seed, double input_mean = 0.0,
                          const Solver* family = nullptr, double y_extra_nrms = 0.0) {
  FusedCase c(std::move(plan), seed, input_mean);
  c.compile(family);
  c.run();
  c.check(y_extra_nrms);
}

// Records `launch(stream)` (a hipError_t) into a HIP graph on a stream of its own, then
// replays it `replays` times, `before()` ahead of each replay and `after()` once it is done.
template <class Launch, class Before, class After>
void replay_from_graph(Launch&& launch, int replays, Before&& before, After&& after) {
  hipStream_t stream = nullptr;
  HF_REQUIRE_HIP(hipStreamCreate(&stream));
  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;
  HF_REQUIRE_HIP(rt::stream_begin_capture(stream));
  const hipError_t launched = launch(stream);
  HF_REQUIRE_HIP(rt::stream_end_capture(stream, &graph));
  REQUIRE(launched == hipSuccess);
  HF_REQUIRE_HIP(rt::graph_instantiate(&exec, graph));
  for (int replay = 0; replay < replays; ++replay) {
    CAPTURE(replay);
    before();
    HF_REQUIRE_HIP(rt::graph_launch(exec, stream));
    HF_REQUIRE_HIP(hipStreamSynchronize(stream));
    after();
  }
  CHECK(rt::graph_exec_destroy(exec) == hipSuccess);
  CHECK(rt::graph_destroy(graph) == hipSuccess);
  CHECK(hipStreamDestroy(stream) == hipSuccess);
}

}  // namespace hipfuse::test
