// Family 2 on the GPU: the implicit-GEMM convolution (matrix units for fp16 / bf16 / tf32,
// SIMT for fp32) against the CPU reference, on ResNet-50-like shapes and odd ones, every
// tile of the heuristic, with outputs poisoned before each run and guard bytes after them;
// then the timing of the four reference layers (events, median of 20 after warm-up).
#include "gpu/test_fused_support.h"
#include "hipfuse/reference/random.h"
#include "solvers/conv_implicit_gemm.h"

#include <algorithm>
#include <cstdio>
#include <future>
#include <iterator>

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

struct Shape {
  int n, c, h, w, k, r, s, pad, stride, dil = 1, groups = 1;
};

enum class Epi { none, bias_relu, bn_act_residual, cbna, prologue };

const char* name_of(Epi e) {
  switch (e) {
    case Epi::none: return "conv";
    case Epi::bias_relu: return "conv+bias+relu";
    case Epi::bn_act_residual: return "conv+bn(per-act)+leakyrelu+residual";
    case Epi::cbna: return "conv+bias+bn(spatial)+relu";
    case Epi::prologue: return "bn+elu|conv+bias";
  }
  return "?";
}

// One plan on the device with its data, operator arguments and reference ops.
class IgemmRun {
 public:
  IgemmRun(DataType type, Lay lay, const Shape& sh, Epi epi, bool tf32, std::uint64_t seed) : seed_(seed) {
    PlanBuilder b(type, {sh.n, sh.c, sh.h, sh.w}, lay);
    if (epi == Epi::prologue) b.bn_infer(BatchNormMode::spatial).act(ActivationMode::elu);
    plan_ = b.take();
    ConvForwardOp conv;
    conv.conv.pads = {sh.pad, sh.pad};
    conv.conv.strides = {sh.stride, sh.stride};
    conv.conv.dilations = {sh.dil, sh.dil};
    conv.conv.groups = sh.groups;
    conv.conv.allow_tf32 = tf32;
    conv.weights = packed(type, {sh.k, sh.c / sh.groups, sh.r, sh.s}, lay);
    plan_->add(conv);
    const TensorDesc out = plan_->output();
    const auto bias = [&] { plan_->add(BiasForwardOp{packed(type, per_channel(sh.k, 4), Lay::nchw)}); };
    switch (epi) {
      case Epi::none: break;
      case Epi::bias_relu:
        bias();
        plan_->add(ActivationForwardOp{ActivationMode::relu});
        break;
      case Epi::bn_act_residual:
        plan_->add(BatchNormInferenceOp{BatchNormMode::per_activation,
                                        packed(DataType::float32, {1, sh.k, out.lengths[2], out.lengths[3]}, Lay::nchw)});
        plan_->add(ActivationForwardOp{ActivationMode::leakyrelu});
        plan_->add(ResidualAddOp{out});
        break;
      case Epi::cbna:  // per-channel parameters: prepared once per channel in the epilogues
        bias();
        plan_->add(BatchNormInferenceOp{BatchNormMode::spatial, packed(DataType::float32, per_channel(sh.k, 4), Lay::nchw)});
        plan_->add(ActivationForwardOp{ActivationMode::relu});
        break;
      case Epi::prologue: bias(); break;
    }
    prologue_ = epi == Epi::prologue;

    const TensorDesc& in = plan_->input();
    x_ = tensor(in, random_tensor(in.lengths, 0.0, 1.0, next_seed(), in.type));
    y_ = tensor(plan_->output(), ref::make_tensor(plan_->output().lengths));
    args_.slots.resize(static_cast<std::size_t>(plan_->op_count()));
    for (const auto& op : plan_->ops()) std::visit([&](const auto& o) { add(*op, o); }, op->op);
  }

  const FusionPlan& plan() const { return *plan_; }
  igemm::Config config(const std::string& tile = {}) const {
    return ConvImplicitGemmSolver::config_for(*plan_, device_target(), tile);
  }
  std::unique_ptr<Invoker> build(const igemm::Config& config) const {
    std::vector<rt::CompileReport> reports;
    return ConvImplicitGemmSolver::build_with(*plan_, device_target(), config, reports);
  }
  hipError_t launch(const Invoker& invoker, const void* x = nullptr, hipStream_t stream = nullptr) const {
    return invoker.launch(stream, x != nullptr ? x : x_->data(), y_->data(), args_);
  }
  void poison() { y_->poison(); }
  std::vector<unsigned char> output_bytes() const { return y_->buffer.read(); }
  DeviceTensor& x() { return *x_; }
  std::int64_t outputs() const { return y_->host.numel(); }
  std::int64_t unwritten() const { return y_->unwritten(); }
  std::int64_t reduction() const { return reduction_; }

  // Tolerance: the reference library's bound for data exact in the storage type with fp32
  // accumulation and one rounding, adjusted for this kernel's rounding points:
  //   tf32: operands rounded to 10 mantissa bits (2^-11 relative each) -> 2^-10;
  //   prologue in fp16 / bf16: the prologue's output is rounded to the storage type before
  //   the matrix units (a second rounding of the same size as the output's) -> x2.
  ref::Tolerance tolerance(bool tf32) const {
    const DataType t = plan_->output().type;
    ref::Tolerance tol = ref::default_tolerance(ref_type(t), reduction_);
    if (tf32) tol.nrms = std::ldexp(1.0, -10) + tol.nrms;
    if (prologue_ && t != DataType::float32) tol.nrms *= 2.0;
    return tol;
  }

  // Every output against the full reference (small problems), or `samples` of them.
  void check(bool tf32, std::int64_t samples = 0) {
    CAPTURE(plan_->key());
    CHECK(y_->buffer.guard_intact());
    const std::vector<unsigned char> bytes = y_->buffer.read();
    const std::int64_t poisoned = ref::count_poison(ref_type(y_->desc.type), bytes.data(), y_->desc.span());
    CHECK_MESSAGE(poisoned == 0, poisoned << " outputs never written");
    const ref::Tensor got = ref::from_storage(bytes.data(), ref_type(y_->desc.type), y_->desc.lengths, y_->desc.strides);
    std::vector<double> g, e;
    if (samples == 0) {
      ref::Tensor expected = ref::run_chain(x_->host, ref_ops_);
      ref::round_all(expected, ref_type(y_->desc.type));
      g = got.data;
      e = expected.data;
    } else {
      const auto idx = ref::sample_indices(samples, got.numel(), seed_ + 7);
      e = ref::run_chain_sampled(x_->host, ref_ops_, idx);
      for (std::size_t i = 0; i < idx.size(); ++i) {
        g.push_back(got.data[static_cast<std::size_t>(idx[i])]);
        e[i] = ref::round_to(ref_type(y_->desc.type), e[i]);
      }
    }
    const ref::Verdict v = ref::compare(g.data(), e.data(), static_cast<std::int64_t>(g.size()), tolerance(tf32));
    CHECK_MESSAGE(v.kind == ref::Verdict::passed, v.message);
  }

 private:
  std::uint64_t next_seed() { return seed_ * 1000003u + counter_++; }
  DeviceTensor* tensor(const TensorDesc& desc, ref::Tensor host) {
    owned_.push_back(std::make_unique<DeviceTensor>(desc, std::move(host)));
    return owned_.back().get();
  }
  void set(const FusionOp& op, OpArgs a) { args_.slots[static_cast<std::size_t>(op.index)] = a; }

  void add(const FusionOp& op, const ConvForwardOp& c) {
    const std::int64_t fan_in = c.weights.lengths[1] * c.weights.lengths[2] * c.weights.lengths[3];
    DeviceTensor* w = tensor(c.weights, random_tensor(c.weights.lengths, 0.0, 1.0 / std::sqrt(double(fan_in)),
                                                      next_seed(), c.weights.type));
    set(op, ConvForwardArgs{w->data(), 1.0});
    ref::ConvGeometry g;
    for (std::size_t d = 0; d < 2; ++d) {
      g.pad.push_back(c.conv.pads[d]);
      g.stride.push_back(c.conv.strides[d]);
      g.dilation.push_back(c.conv.dilations[d]);
    }
    g.groups = c.conv.groups;
    ref_ops_.push_back(ref::ConvOp{w->host, g, 1.0});
    reduction_ = fan_in;
  }
  void add(const FusionOp& op, const BiasForwardOp& b) {
    DeviceTensor* bias = tensor(b.bias, random_tensor(b.bias.lengths, 0.0, 0.5, next_seed(), b.bias.type));
    set(op, BiasForwardArgs{bias->data()});
    ref_ops_.push_back(ref::BiasOp{bias->host});
  }
  void add(const FusionOp& op, const ActivationForwardOp& a) {
    const ActivationParams p = params_for(a.mode);
    set(op, ActivationForwardArgs{p.alpha, p.beta, p.gamma});
    ref_ops_.push_back(ref::ActivationForwardOp{static_cast<ref::ActivationMode>(a.mode), p.alpha, p.beta, p.gamma});
  }
  void add(const FusionOp& op, const ResidualAddOp& r) {
    DeviceTensor* z = tensor(r.z, random_tensor(r.z.lengths, 0.0, 1.0, next_seed(), r.z.type));
    set(op, ResidualAddArgs{z->data(), 0.75});
    ref_ops_.push_back(ref::ResidualAddOp{z->host, 0.75});
  }
  void add(const FusionOp& op, const BatchNormInferenceOp& n) {
    const auto& l = n.params.lengths;
    auto param = [&](ref::Tensor h) {
      return tensor(TensorDesc::packed(DataType::float32, l, Layout::nchw), std::move(h));
    };
    DeviceTensor* scale = param(random_tensor(l, 1.0, 0.25, next_seed(), DataType::float32));
    DeviceTensor* bias = param(random_tensor(l, 0.0, 0.5, next_seed(), DataType::float32));
    DeviceTensor* mean = param(random_tensor(l, 0.0, 0.5, next_seed(), DataType::float32));
    DeviceTensor* var = param(uniform_tensor(l, 0.25, 2.0, next_seed(), DataType::float32));
    set(op, BatchNormInferenceArgs{scale->data(), bias->data(), mean->data(), var->data(), 1e-5});
    ref_ops_.push_back(ref::BnInferenceOp{static_cast<ref::BnMode>(n.mode), scale->host, bias->host, mean->host,
                                          var->host, 1e-5});
  }
  template <class Other>
  void add(const FusionOp&, const Other&) {
    FAIL("op kind not used by these tests");
  }

  std::unique_ptr<FusionPlan> plan_;
  std::uint64_t seed_, counter_ = 0;
  bool prologue_ = false;
  std::vector<std::unique_ptr<DeviceTensor>> owned_;
  DeviceTensor* x_ = nullptr;
  DeviceTensor* y_ = nullptr;
  OperatorArgs args_;
  std::vector<ref::Op> ref_ops_;
  std::int64_t reduction_ = 1;
};

const char* type_name(DataType t, bool tf32) { return tf32 ? "tf32" : hipfuse::name_of(t); }

void run_checked(DataType type, Lay lay, const Shape& sh, Epi epi, bool tf32, std::uint64_t seed,
                 const std::string& tile = {}) {
  IgemmRun run(type, lay, sh, epi, tf32, seed);
  const igemm::Config config = run.config(tile);
  const std::string what = std::string(type_name(type, tf32)) + " " + name_of(lay) + " " + name_of(epi) + " " +
                           config.describe();
  CAPTURE(what);
  auto invoker = run.build(config);
  run.poison();
  HF_REQUIRE_HIP(run.launch(*invoker));
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  run.check(tf32);
}

// Runs `invoker` on a copy of run's x, at an aligned address or (misaligned) one element past
// it, and checks the output against the reference (all of it, or `samples` outputs).
void check_with_x_copy(IgemmRun& run, const Invoker& invoker, DataType type, bool misaligned, bool tf32,
                       std::int64_t samples = 0) {
  const std::size_t elem = size_of(type), bytes = run.x().buffer.bytes();
  DeviceBuffer shifted(bytes + elem);
  char* x = static_cast<char*>(shifted.data()) + (misaligned ? elem : 0);
  HF_REQUIRE_HIP(hipMemcpy(x, run.x().data(), bytes, hipMemcpyDeviceToDevice));
  run.poison();
  HF_REQUIRE_HIP(run.launch(invoker, x));
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  run.check(tf32, samples);
}

struct Variant {
  DataType type;
  bool tf32;
};
constexpr Variant kVariants[] = {
    {DataType::half, false}, {DataType::bfloat16, false}, {DataType::float32, false}, {DataType::float32, true}};

}  // namespace

TEST_CASE("igemm: ResNet-50-like layers in fp16/bf16/fp32/tf32 x NCHW/NHWC") {
  const Shape shapes[] = {
      {2, 64, 14, 14, 256, 1, 1, 0, 1},   // 1x1 expand
      {2, 64, 14, 14, 64, 3, 3, 1, 1},    // 3x3
      {2, 128, 15, 15, 128, 3, 3, 1, 2},  // 3x3 stride 2 (odd input)
      {2, 256, 14, 14, 512, 1, 1, 0, 2},  // 1x1 stride 2 downsample
      {2, 3, 30, 30, 64, 7, 7, 3, 2},     // the 7x7/2 stem, C = 3: width folded (fp32: gathered)
  };
  std::uint64_t seed = 1;
  for (const Variant& v : kVariants) {
    for (Lay lay : kAllLayouts) {
      for (const Shape& sh : shapes) {
        const Epi epi = seed % 3 == 0 ? Epi::bias_relu : seed % 3 == 1 ? Epi::bn_act_residual : Epi::cbna;
        run_checked(v.type, lay, sh, epi, v.tf32, seed++);
      }
    }
  }
}

TEST_CASE("igemm: odd channels, dilation, groups and a prologue") {
  const Shape shapes[] = {
      {3, 17, 9, 11, 33, 3, 3, 1, 1},     // odd C and K, M not a tile multiple
      {2, 33, 12, 10, 17, 5, 3, 2, 2, 2},  // 5x3, stride 2, dilation 2
      {2, 3, 8, 8, 3, 3, 3, 0, 1},        // tiny
      {2, 64, 10, 10, 64, 3, 3, 1, 1, 1, 4},  // 4 groups of 16
  };
  std::uint64_t seed = 100;
  for (const Variant& v : kVariants) {
    for (Lay lay : kAllLayouts) {
      for (const Shape& sh : shapes) run_checked(v.type, lay, sh, Epi::bn_act_residual, v.tf32, seed++);
      run_checked(v.type, lay, {2, 32, 12, 12, 48, 3, 3, 1, 1}, Epi::prologue, v.tf32, seed++);
    }
  }
}

// The NCHW re-layout (hf_igemm_pack_input) transposes register blocks where accesses of 8 or
// 16 bytes tile the planes, else moves pixels through a shared tile in accesses of 2 or 1
// elements, or small planes as whole-plane runs of 16-byte accesses, channels in tiles of 8
// to 64: each width, partial channel and pixel tiles, and x one element off alignment (the
// scalar walks), with and without a prologue applied on the way (3x3 only: 1x1 layers with
// a prologue gather).
TEST_CASE("igemm: NCHW input re-layout: every access width, partial tiles, misaligned x") {
  const Shape shapes[] = {
      {2, 96, 16, 16, 64, 3, 3, 1, 1},  // H*W % 8 == 0; 96 channels: a full and a half tile
      {2, 40, 20, 20, 24, 3, 3, 1, 1},  // register blocks: partial channel and pixel tiles
      {2, 64, 14, 14, 32, 3, 3, 1, 2},  // H*W = 196: 4-element accesses
      {2, 24, 5, 6, 40, 3, 3, 1, 1},    // H*W = 30: 2-element accesses; a 32-channel tile
      {2, 16, 7, 7, 24, 3, 3, 1, 1},    // H*W = 49: plane runs (aligned x); a 16-channel tile
      {2, 8, 9, 9, 16, 3, 3, 1, 1},     // 8 channels, 512 pixels a tile
      {2, 96, 7, 7, 40, 1, 1, 0, 1},    // 1x1, C >= 2K: plane runs, a full and a partial 64-channel tile
      {3, 64, 5, 5, 24, 1, 1, 0, 1},    // 1x1, H*W = 25
  };
  std::uint64_t seed = 900;
  for (DataType type : {DataType::half, DataType::bfloat16, DataType::float32}) {
    for (const Shape& sh : shapes) {
      for (Epi epi : {Epi::bias_relu, Epi::prologue}) {
        if (sh.r == 1 && (epi == Epi::prologue || type == DataType::float32)) continue;  // gathered
        for (bool misaligned : {false, true}) {
          IgemmRun run(type, Lay::nchw, sh, epi, false, seed++);
          const igemm::Config config = run.config();
          CAPTURE(config.describe());
          CAPTURE(misaligned);
          REQUIRE(config.pack_input);
          check_with_x_copy(run, *run.build(config), type, misaligned, false);
        }
      }
    }
  }
}

// The re-layout streamed beside its GEMM (igemm::Config::stream_input): the GEMM's loader waits
// for each tile's images instead of the re-layout's launch. The heuristic's streamed layer
// (wg128x64p, two blocks a multiprocessor, several tiles each), and forced: wg128x128p with
// tiles straddling images (stride 2, 196 output pixels an image), the one-tile-a-block
// wg192x128 with N off the tile; a prologue applied by the re-layout; executions back to back
// and replays of a captured graph (the GEMM's last block re-zeroes the counters for the next);
// x one element off alignment (the scalar transposes); "/serial" (the whole re-layout first).
TEST_CASE("igemm: streamed NCHW re-layout: tiles across images, back-to-back executions, graphs, misaligned x") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  struct Case {
    Shape shape;
    const char* tile;
    bool streamed;
  };
  const Case cases[] = {
      {{64, 64, 48, 48, 64, 3, 3, 1, 1}, "", true},  // the heuristic's: 1152 tiles on 264 blocks
      {{64, 64, 48, 48, 64, 3, 3, 1, 1}, "/serial", false},
      {{16, 256, 28, 28, 256, 3, 3, 1, 2}, "wg128x128p/ws+im2col+s16+stream", true},
      {{8, 128, 20, 20, 96, 3, 3, 1, 1}, "wg192x128/ws+im2col+stream", true},
  };
  std::uint64_t seed = 7100;
  for (DataType type : {DataType::half, DataType::bfloat16}) {
    for (const Case& k : cases) {
      for (Epi epi : {Epi::cbna, Epi::prologue}) {
        IgemmRun run(type, Lay::nchw, k.shape, epi, false, seed++);
        const igemm::Config config = run.config(k.tile);
        CAPTURE(config.describe());
        REQUIRE(config.stream_input == k.streamed);
        auto invoker = run.build(config);
        run.poison();
        for (int i = 0; i < 3; ++i) HF_REQUIRE_HIP(run.launch(*invoker));
        HF_REQUIRE_HIP(hipDeviceSynchronize());
        run.check(false, 20000);
        check_with_x_copy(run, *invoker, type, true, false, 20000);
        // Captured once, replayed twice.
        replay_from_graph([&](hipStream_t stream) { return run.launch(*invoker, nullptr, stream); }, 2,
                          [&] { run.poison(); }, [&] { run.check(false, 20000); });
      }
    }
  }
}

// Few input channels (C <= 4): the filter width folded into the channels by the re-layout
// (igemm::WidthFold), zero past S*C and where a window leaves x, the weights folded alike;
// C from 1 to 4, filters from 2 to 7 wide, strides, pads up to past the filter, dilation,
// every epilogue and a prologue (applied before the padding's zeros), the heuristic's tile
// and forced mma.sync / wgmma / warp-specialised ones, and x one element off alignment.
TEST_CASE("igemm: filter width folded into the channels: C 1-4, strides, pads, dilation, misaligned x") {
  const Shape shapes[] = {
      {2, 3, 30, 30, 64, 7, 7, 3, 2},     // the stem: 21 -> 32 channels (fp16; tf32 alike)
      {2, 1, 17, 19, 24, 5, 5, 2, 1},     // C = 1: 5 -> 16 (tf32: 8)
      {3, 2, 13, 16, 40, 3, 3, 1, 2},     // C = 2, stride 2: 6 -> 16 (tf32: 8)
      {2, 4, 11, 12, 16, 3, 3, 1, 1},     // C = 4: 12 -> 16
      {2, 3, 20, 21, 32, 3, 3, 2, 1, 2},  // dilation 2
      {2, 3, 9, 9, 8, 3, 2, 3, 1},        // 3x2 filter, pad 3: windows wholly in the padding
  };
  std::uint64_t seed = 1300;
  for (const Variant& v : kVariants) {
    if (v.type == DataType::float32 && !v.tf32) continue;  // SIMT: not folded
    for (Lay lay : kAllLayouts) {
      for (const Shape& sh : shapes) {
        for (Epi epi : {Epi::bias_relu, Epi::cbna, Epi::prologue}) {
          IgemmRun run(v.type, lay, sh, epi, v.tf32, seed++);
          const igemm::Config config = run.config();
          CAPTURE(config.describe());
          // Vectors of 4 fp32 values read 4 channels as they are: folded below 4 only.
          if (sh.c % (16 / static_cast<int>(size_of(v.type))) != 0) REQUIRE(config.fold.active());
          check_with_x_copy(run, *run.build(config), v.type, false, v.tf32);
        }
      }
      // Forced tiles on the stem, and x one element past an aligned address.
      for (const char* tile : {"128x64k64", "64x64", "wg128x64", "wg128x64p/ws"}) {
        if (v.type == DataType::float32 && tile[0] == 'w') continue;  // wgmma: 16-bit only
        for (bool misaligned : {false, true}) {
          IgemmRun run(v.type, lay, shapes[0], Epi::cbna, v.tf32, seed++);
          const igemm::Config config = run.config(tile);
          CAPTURE(config.describe());
          CAPTURE(misaligned);
          REQUIRE(config.fold.active());
          check_with_x_copy(run, *run.build(config), v.type, misaligned, v.tf32);
        }
      }
    }
  }
}

// Stream-K: blocks own k-tile ranges; tiles split 2 to 9 ways (a k-tile a block on the small
// grids, ranges across tile boundaries on the larger), the last share summing them. Run twice
// per plan: the tile counters must be back at zero, and the sum is in a fixed order, so the
// second output must equal the first bit for bit.
TEST_CASE("igemm: stream-K on edges: tiles shared by many blocks, counters reset, deterministic sums") {
  struct Case {
    DataType type;
    bool tf32;
    Lay lay;
    Shape shape;
    Epi epi;
    const char* tile;
  };
  const Case cases[] = {
      {DataType::half, false, Lay::nhwc, {2, 64, 14, 14, 256, 3, 3, 1, 1}, Epi::bias_relu, "wg128x256/sk"},
      {DataType::half, false, Lay::nhwc, {8, 256, 14, 14, 256, 3, 3, 1, 1}, Epi::cbna, "wg128x256/sk"},
      {DataType::bfloat16, false, Lay::nchw, {8, 256, 14, 14, 256, 3, 3, 1, 1}, Epi::bn_act_residual, "wg128x128/sk"},
      {DataType::half, false, Lay::nhwc, {4, 512, 7, 7, 512, 3, 3, 1, 1}, Epi::bias_relu, "wg128x128/sk"},
      {DataType::bfloat16, false, Lay::nhwc, {3, 17, 9, 11, 33, 3, 3, 1, 1}, Epi::bn_act_residual, "128x64/sk"},
      {DataType::half, false, Lay::nchw, {2, 32, 12, 12, 48, 3, 3, 1, 1}, Epi::prologue, "128x64k64/sk"},
      {DataType::float32, true, Lay::nhwc, {4, 64, 14, 14, 128, 3, 3, 1, 1}, Epi::bias_relu, "128x128/sk"},
  };
  std::uint64_t seed = 700;
  for (const Case& c : cases) {
    IgemmRun run(c.type, c.lay, c.shape, c.epi, c.tf32, seed++);
    const igemm::Config config = run.config(c.tile);
    CAPTURE(config.describe());
    REQUIRE(config.stream_k_blocks > 0);
    auto invoker = run.build(config);
    std::vector<unsigned char> first;
    for (int launch = 0; launch < 2; ++launch) {
      CAPTURE(launch);
      run.poison();
      HF_REQUIRE_HIP(run.launch(*invoker));
      HF_REQUIRE_HIP(hipDeviceSynchronize());
      run.check(c.tf32);
      if (launch == 0) {
        first = run.output_bytes();
      } else {
        CHECK(run.output_bytes() == first);
      }
    }
  }
}

TEST_CASE("igemm: every tile, on edges (M, N and K not multiples of the tile)") {
  const Shape sh{3, 40, 13, 11, 72, 3, 3, 1, 1};  // M = 429, N = 72, K = 360
  const std::pair<Variant, std::vector<const char*>> sets[] = {
      {{DataType::half, false}, {"128x128", "128x128w8", "256x64", "128x64", "64x64", "128x32"}},
      {{DataType::bfloat16, false}, {"128x128", "128x128w8", "256x64", "128x64", "64x64", "128x32"}},
      {{DataType::float32, true}, {"128x128", "128x128w8", "256x64", "128x64", "64x64", "128x32"}},
      {{DataType::float32, false}, {"simt128x128", "simt128x64", "simt64x64", "simt128x128k16", "simt128x64k16"}},
  };
  std::uint64_t seed = 300;
  for (const auto& [v, tiles] : sets) {
    for (Lay lay : kAllLayouts) {
      for (const char* tile : tiles) {
        run_checked(v.type, lay, sh, Epi::bias_relu, v.tf32, seed++, tile);
        run_checked(v.type, lay, sh, Epi::cbna, v.tf32, seed++, tile);  // the epilogues' per-channel paths
      }
    }
  }
}

namespace {

// One layer of a tile test: data type, layout, shape, fused chain.
struct LayerCase {
  DataType type;
  Lay lay;
  Shape shape;
  Epi epi;
};

// Runs every case on every forced tile: `expect(config, case, tile)` checks the configuration,
// then the outputs are poisoned, computed and compared with the CPU reference (every element,
// or `samples` of them). Seeds count up from `seed`.
template <class Expect>
void run_cases(const std::vector<const char*>& tiles, const std::vector<LayerCase>& cases, std::uint64_t seed,
               Expect expect, std::int64_t samples = 0) {
  for (const char* tile : tiles) {
    for (const LayerCase& c : cases) {
      IgemmRun run(c.type, c.lay, c.shape, c.epi, false, seed++);
      const igemm::Config config = run.config(tile);
      CAPTURE(config.describe());
      expect(config, c, std::string(tile));
      auto invoker = run.build(config);
      run.poison();
      HF_REQUIRE_HIP(run.launch(*invoker));
      HF_REQUIRE_HIP(hipDeviceSynchronize());
      run.check(false, samples);
    }
  }
}

// Forced tiles on small odd problems: partial k-tiles, M and N edges, GEMM K below one
// k-tile, per-element gathers and a prologue, groups with stride; fp16 / bf16 x NHWC / NCHW
// (and tf32 on every other combination where `with_tf32`).
void run_tiles_on_edges(const std::vector<const char*>& tiles, bool with_tf32, std::uint64_t seed) {
  struct Case {
    Shape shape;
    Epi epi;
  };
  const Case cases[] = {
      {{3, 40, 13, 11, 72, 3, 3, 1, 1}, Epi::bias_relu},         // M 429, N 72, K 360: 5.6 k-tiles
      {{2, 24, 9, 7, 40, 1, 1, 0, 1}, Epi::bn_act_residual},     // K 24 < one k-tile: 1 stage
      {{2, 17, 9, 11, 33, 3, 3, 1, 1}, Epi::prologue},           // odd C and K: per-element gathers
      {{2, 72, 10, 9, 136, 3, 3, 1, 2, 1, 2}, Epi::bias_relu},   // 2 groups of 36 -> 68, stride 2
  };
  struct Job {
    DataType type;
    bool tf32;
    Lay lay;
    const char* tile;
    const Case* c;
    std::uint64_t seed;
  };
  std::vector<Job> jobs;
  std::size_t rotate = 0;
  for (const char* tile : tiles) {
    for (const Variant& v : kVariants) {
      if (v.type == DataType::float32 && !(v.tf32 && with_tf32)) continue;
      for (Lay lay : kAllLayouts) {
        if (v.tf32 && rotate % 2 == 1) {  // tf32: every other combination, to keep the compiles few
          ++rotate;
          continue;
        }
        jobs.push_back({v.type, v.tf32, lay, tile, &cases[rotate++ % std::size(cases)], seed++});
      }
    }
  }
  // Build every plan's kernel at once (hipRTC runs on the host's cores), then run in order.
  std::vector<std::unique_ptr<IgemmRun>> runs;
  std::vector<igemm::Config> configs;
  std::vector<std::future<std::unique_ptr<Invoker>>> builds;
  for (const Job& j : jobs) {
    runs.push_back(std::make_unique<IgemmRun>(j.type, j.lay, j.c->shape, j.c->epi, j.tf32, j.seed));
    configs.push_back(runs.back()->config(j.tile));
    builds.push_back(
        std::async(std::launch::async, [r = runs.back().get(), c = configs.back()] { return r->build(c); }));
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string what = std::string(type_name(jobs[i].type, jobs[i].tf32)) + " " + name_of(jobs[i].lay) + " " +
                             name_of(jobs[i].c->epi) + " " + configs[i].describe();
    CAPTURE(what);
    const std::string tile(jobs[i].tile);
    CHECK(configs[i].tile.name() == tile.substr(0, tile.find('/')));
    std::unique_ptr<Invoker> invoker = builds[i].get();
    runs[i]->poison();
    HF_REQUIRE_HIP(runs[i]->launch(*invoker));
    HF_REQUIRE_HIP(hipDeviceSynchronize());
    runs[i]->check(jobs[i].tf32);
  }
}

}  // namespace

// One filter tap per k-tile (C/G a multiple of BK): the A loaders keep each row's receptive
// field origin and a bit per tap inside the image, B's offsets are linear in kk. Every tile
// kind on padding (border taps masked), stride with dilation, 25 taps in 2 groups, M and N
// off the tile.
TEST_CASE("igemm: one filter tap per k-tile: padding, stride, dilation, groups, every tile kind") {
  const Shape shapes[] = {
      {3, 64, 9, 11, 72, 3, 3, 1, 1},         // pad 1; M 297, N 72
      {2, 128, 10, 9, 136, 3, 3, 2, 2, 2},    // stride 2, dilation 2, pad 2
      {2, 256, 7, 7, 40, 5, 5, 2, 1, 1, 2},   // 5x5, 2 groups of 128 -> 20
  };
  std::vector<std::string> tiles = {"128x128", "64x64", "128x64k64", "128x64k64p", "128x64/sk"};
  if (igemm::has_warpgroup_mma(device_target().arch)) {
    for (const char* t : {"wg128x128", "wg192x128", "wg128x256", "wg128x128/sk", "wg128x128/ws"}) tiles.push_back(t);
  }
  std::vector<std::unique_ptr<IgemmRun>> runs;
  std::vector<igemm::Config> configs;
  std::vector<bool> tf32;
  std::vector<std::future<std::unique_ptr<Invoker>>> builds;
  std::uint64_t seed = 1400;
  for (const std::string& tile : tiles) {
    for (const Variant& v : kVariants) {
      if (v.type == DataType::float32 && !(v.tf32 && tile.rfind("wg", 0) != 0)) continue;
      for (Lay lay : kAllLayouts) {
        for (const Shape& sh : shapes) {
          const Epi epi = seed % 2 == 0 ? Epi::bias_relu : Epi::cbna;
          runs.push_back(std::make_unique<IgemmRun>(v.type, lay, sh, epi, v.tf32, seed++));
          configs.push_back(runs.back()->config(tile));
          tf32.push_back(v.tf32);
          builds.push_back(
              std::async(std::launch::async, [r = runs.back().get(), c = configs.back()] { return r->build(c); }));
        }
      }
    }
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(configs[i].describe());
    CHECK(configs[i].a_loader == igemm::Loader::async16);
    std::unique_ptr<Invoker> invoker = builds[i].get();
    runs[i]->poison();
    HF_REQUIRE_HIP(runs[i]->launch(*invoker));
    HF_REQUIRE_HIP(hipDeviceSynchronize());
    runs[i]->check(tf32[i]);
  }
}

// The BK = 64 tiles (128-byte k-tile rows, 8-chunk swizzle, double-buffered fragments, stages
// cut to the k-tiles; the persistent one walks several output tiles per block).
TEST_CASE("igemm: BK 64 tiles on edges, fp16/bf16 x NHWC/NCHW") {
  run_tiles_on_edges({"128x128k64", "128x128w8k64", "256x64k64", "128x64k64", "128x64w8k64", "128x64k64p"}, true, 700);
}

// The warpgroup tiles (wgmma from the swizzled shared memory, one k-tile in flight, 1 to 3
// warpgroups, N of 64, 128 and 256; with 3, B's chunks are not a multiple of the threads), on
// Hopper only.
TEST_CASE("igemm: warpgroup (wgmma) tiles on edges, fp16/bf16 x NHWC/NCHW") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  // wg128x128p: the automatic choice for memory-bound NCHW (gathered A) layers of N >= 128.
  run_tiles_on_edges({"wg128x128", "wg128x64", "wg64x128", "wg128x256", "wg256x128", "wg192x128", "wg128x128p"}, false,
                     900);
}

// The warp-specialised wgmma tiles (loader threads filling the stages on mbarriers): the
// edge cases (where a loader is gathered, the tile runs without it), then GEMM K of several
// rounds of the stages (every barrier's phase parity flips) with A copied along C (NHWC, and
// NCHW re-laid out), along the pixels (NCHW 1x1, 16- and 8-byte copies) and by tensor map
// (NHWC 1x1: M, N and GEMM K off the boxes, whole-k-tile groups); B always by tensor map.
TEST_CASE("igemm: warp-specialised wgmma tiles: edges, many rounds of the stages, both A copies") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  const std::vector<const char*> tiles = {"wg128x128/ws", "wg128x64/ws",  "wg64x128/ws",
                                          "wg128x256/ws", "wg256x128/ws", "wg192x128/ws"};
  run_tiles_on_edges(tiles, false, 1100);
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {2, 256, 9, 11, 200, 3, 3, 1, 1}, Epi::bias_relu},          // 36 k-tiles
      {DataType::bfloat16, Lay::nchw, {2, 256, 9, 11, 200, 3, 3, 1, 1}, Epi::cbna},           // x re-laid out
      {DataType::half, Lay::nchw, {3, 640, 12, 12, 136, 1, 1, 0, 1}, Epi::bn_act_residual},  // 10 k-tiles of pixels
      {DataType::bfloat16, Lay::nchw, {2, 512, 10, 10, 72, 1, 1, 0, 1}, Epi::bias_relu},      // 4-pixel copies
      {DataType::half, Lay::nhwc, {3, 640, 9, 11, 200, 1, 1, 0, 1}, Epi::bn_act_residual},   // A by map: 10 k-tiles
      {DataType::bfloat16, Lay::nhwc, {2, 72, 10, 10, 136, 1, 1, 0, 1}, Epi::cbna},          // K 72: a partial box
      {DataType::half, Lay::nhwc, {2, 256, 8, 9, 136, 1, 1, 0, 1, 1, 2}, Epi::bias_relu},    // 2 groups of 128
      {DataType::half, Lay::nhwc, {2, 256, 9, 11, 200, 1, 1, 0, 2}, Epi::bias_relu},         // stride 2: A by cp.async
      {DataType::half, Lay::nhwc, {2, 64, 10, 10, 136, 1, 1, 0, 1}, Epi::bias_relu},         // one k-tile, one stage
      {DataType::bfloat16, Lay::nchw, {3, 256, 7, 7, 64, 1, 1, 0, 1}, Epi::cbna},            // re-laid out, A by map
  };
  run_cases(tiles, cases, 1200, [](const igemm::Config& config, const LayerCase& c, const std::string&) {
    // Pixel chunks must divide among the 128 loader threads (not 192 / 8 = 24).
    const bool fits = config.a_loader != igemm::Loader::pixels || 128 % (config.tile.bm / 8) == 0;
    CHECK(config.warp_specialized == fits);
    // A by tensor map: a 1x1, stride-1 convolution whose x is channels-last (NHWC, or NCHW re-laid out).
    const bool a_map = c.shape.r == 1 && c.shape.stride == 1 && config.a_loader == igemm::Loader::async16;
    CHECK(config.tma_a == (fits && a_map));
    CHECK(config.tma_b == fits);
  });
}

// 16-bit epilogue staging (forced "/s16": the fused ops on each thread's accumulators, 16-bit
// values staged): the edge cases (odd K runs without it), then layers where persistent blocks
// walk several tiles (the staging past the pipeline), M and N off the tile, 2 groups, and
// every chain, position-dependent steps (residual) included; channels-last y, and NCHW y
// staged along the pixels in vectors of 8 (28x28), 4 (14x14) and 1 value (7x7, 13x11).
TEST_CASE("igemm: 16-bit epilogue staging: edges, persistent tiles, every chain") {
  std::vector<const char*> tiles = {"128x64k64p/s16", "64x64k64p/s16", "128x128/s16", "128x64/s16"};
  if (igemm::has_warpgroup_mma(device_target().arch)) {
    for (const char* t : {"wg128x128/s16", "wg128x128p/s16", "wg192x128/ws+s16", "wg128x256/ws+s16"}) tiles.push_back(t);
  }
  run_tiles_on_edges(tiles, false, 1500);
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {8, 64, 28, 28, 256, 1, 1, 0, 1}, Epi::bias_relu},            // M 6272: many tiles a block
      {DataType::bfloat16, Lay::nhwc, {8, 64, 28, 28, 256, 1, 1, 0, 1}, Epi::cbna},
      {DataType::half, Lay::nhwc, {3, 128, 13, 11, 200, 1, 1, 0, 1}, Epi::bn_act_residual},     // M 429, N 200
      {DataType::bfloat16, Lay::nhwc, {2, 136, 9, 10, 144, 3, 3, 1, 1, 1, 2}, Epi::bias_relu},  // 2 groups of 68 -> 72
      {DataType::half, Lay::nchw, {8, 64, 28, 28, 256, 3, 3, 1, 1}, Epi::bias_relu},             // x re-laid out
      {DataType::bfloat16, Lay::nchw, {4, 128, 14, 14, 200, 1, 1, 0, 1}, Epi::cbna},             // N 200
      {DataType::half, Lay::nchw, {3, 128, 13, 11, 200, 1, 1, 0, 1}, Epi::bn_act_residual},
      {DataType::half, Lay::nchw, {16, 256, 7, 7, 64, 1, 1, 0, 1}, Epi::cbna},                   // 49-value planes
      {DataType::bfloat16, Lay::nchw, {2, 136, 9, 10, 144, 3, 3, 1, 1, 1, 2}, Epi::bn_act_residual},  // 2 groups
  };
  run_cases(tiles, cases, 1600, [](const igemm::Config& config, const LayerCase& c, const std::string&) {
    CHECK(config.stage_16bit);
    CHECK(config.out_along_k == (c.lay == Lay::nhwc));
  });
}

// Persistent warp-specialised wgmma tiles (the loaders run on into the block's next tile while
// the multiplying warps store this one): the edge cases, then layers of several tiles a block
// (the stages' ring and its barrier parities carried from tile to tile) with A by tensor map
// (NHWC 1x1), by cp.async (3x3 stride 2) and along the pixels (NCHW 1x1), fp32 and 16-bit
// staging, 2 groups.
TEST_CASE("igemm: persistent warp-specialised tiles: edges, several tiles a block, every A copy") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  // "+st2": two stages, the loaders one k-tile ahead of the multiplies (the heuristic's
  // wg128x128p on memory-bound 1x1 layers with N >= 512).
  const std::vector<const char*> tiles = {"wg128x128p/ws",         "wg128x64p/ws",     "wg64x128p/ws",
                                          "wg128x128p/ws+s16",     "wg128x64p/ws+s16", "wg192x128p/ws",
                                          "wg192x128p/ws+s16",     "wg128x64p/ws+st2", "wg128x128p/ws+s16+st2",
                                          "wg128x128p/ws+s16+bs"};
  run_tiles_on_edges(tiles, false, 1700);
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {16, 64, 32, 32, 1024, 1, 1, 0, 1}, Epi::bias_relu},      // one k-tile a tile
      {DataType::bfloat16, Lay::nhwc, {16, 200, 32, 32, 512, 1, 1, 0, 1}, Epi::cbna},       // 4 k-tiles, last partial
      {DataType::half, Lay::nhwc, {32, 64, 34, 34, 512, 3, 3, 1, 2}, Epi::bn_act_residual}, // A by cp.async
      {DataType::half, Lay::nchw, {16, 64, 32, 32, 512, 1, 1, 0, 1}, Epi::bias_relu},       // A along the pixels
      {DataType::bfloat16, Lay::nhwc, {64, 256, 16, 16, 512, 1, 1, 0, 1, 1, 2}, Epi::bias_relu},  // 2 groups
  };
  const auto expect = [](const igemm::Config& config, const LayerCase& c, const std::string& tile) {
    CHECK(config.tile.persistent);
    // 192 rows of A along the pixels are 24 chunks a k-tile row, which the 128 loader threads
    // do not divide: that tile runs without the loader warpgroup on NCHW x.
    if (c.lay == Lay::nchw && c.shape.r == 1 && tile.rfind("wg192x128p", 0) == 0) {
      CHECK(!config.warp_specialized);
      return;
    }
    REQUIRE(config.warp_specialized);
    CHECK(config.grid_x < config.tiles);  // blocks that walk several tiles
    CHECK(config.stage_16bit == (tile.find("s16") != std::string::npos));
    CHECK(config.tma_a == (c.lay == Lay::nhwc && c.shape.r == 1));
    if (tile.find("st2") != std::string::npos) CHECK(config.tile.stages == 2);
  };
  run_cases(tiles, cases, 1800, expect, 100000);
}

// The staged tile stored by tensor-map copies ("/bs", Config::tma_store): one thread hands the
// 64-channel boxes to the copy engine while the warpgroups go on to the block's next tile. The
// copies are clipped at M (8 images of 17 x 17: 2312 rows, off every tile height) and at N (136
// and 200 channels: a box partly past K, another wholly past it and skipped); one k-tile and
// several, a 3x3 A by cp.async, blocks of several tiles (32 images of 34 x 34); every output
// compared.
TEST_CASE("igemm: tensor-map store of the staged tile: M and N edges, several tiles a block") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  const std::vector<const char*> tiles = {"wg128x128p/ws+s16+bs", "wg128x64p/ws+s16+bs", "wg64x128p/ws+s16+bs",
                                          "wg192x128p/ws+s16+bs", "wg128x128p/ws+s16+st2+bs"};
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {32, 64, 34, 34, 136, 1, 1, 0, 1}, Epi::bias_relu},          // one k-tile
      {DataType::bfloat16, Lay::nhwc, {8, 200, 17, 17, 200, 1, 1, 0, 1}, Epi::cbna},           // 4, the last partial
      {DataType::half, Lay::nhwc, {8, 72, 17, 17, 72, 3, 3, 1, 1}, Epi::bn_act_residual},      // A by cp.async
  };
  int walked = 0;  // runs whose blocks walk several tiles
  const auto expect = [&walked](const igemm::Config& config, const LayerCase&, const std::string&) {
    REQUIRE(config.tma_store);
    CHECK(config.tile.persistent);
    walked += config.grid_x < config.tiles ? 1 : 0;
  };
  run_cases(tiles, cases, 1900, expect);
  CHECK(walked >= static_cast<int>(tiles.size()));
}

// Channel widths other than 64 / 128 / 256 ("/n<N>"; the heuristic fits 208 to the waves of 1x1
// 1024->2048 14x14 s2): N off the width (200: a tile partly past K; 512 over 112: the last tile
// 64 wide), 4 k-tiles with the last partial, a 3x3 A by cp.async and by im2col map, NCHW x
// copied along the pixels, fp32 staging (144), blocks of several tiles (M 3136, N 2048); every
// output compared (or 100,000 sampled on the largest).
TEST_CASE("igemm: channel widths fitted to the waves: N edges, several tiles a block, every A copy") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  const std::vector<const char*> tiles = {"wg128x128p/ws+s16+n112", "wg128x128p/ws+s16+n208",
                                          "wg128x128p/ws+im2col+s16+n112", "wg128x128p/ws+n144",
                                          "wg128x128p/ws+s16+n80"};
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {16, 256, 7, 7, 200, 1, 1, 0, 1}, Epi::bias_relu},         // N 200
      {DataType::bfloat16, Lay::nhwc, {16, 200, 9, 9, 512, 1, 1, 0, 1}, Epi::cbna},          // K 200, N 512
      {DataType::half, Lay::nhwc, {8, 64, 14, 14, 336, 3, 3, 1, 2}, Epi::bn_act_residual},   // 3x3 stride 2
      {DataType::half, Lay::nchw, {16, 64, 8, 8, 200, 1, 1, 0, 1}, Epi::bias_relu},          // A along the pixels
      {DataType::half, Lay::nhwc, {64, 128, 7, 7, 2048, 1, 1, 0, 1}, Epi::bias_relu},        // several tiles a block
  };
  int walked = 0;  // runs whose blocks walk several tiles
  const auto expect = [&walked](const igemm::Config& config, const LayerCase& c, const std::string& tile) {
    REQUIRE(config.warp_specialized);
    CHECK(config.tile.persistent);
    CHECK(config.tile.bn == std::stoi(tile.substr(tile.find("+n") + 2)));
    CHECK(config.stage_16bit == (tile.find("s16") != std::string::npos));
    CHECK(config.tma_a_im2col == (tile.find("im2col") != std::string::npos && c.shape.r == 3));
    walked += config.grid_x < config.tiles ? 1 : 0;
  };
  run_cases(tiles, cases, 2100, expect, 100000);
  CHECK(walked >= static_cast<int>(tiles.size()));
}

// A multicast across 2-block clusters ("/mc", Config::cluster_blocks): each block of a pair
// copies half of their common A k-tile into both. M off the tile (784 rows: the last tile's
// second half wholly past M, copied as zeros), N off it (200 over 128), K 200 (the last k-tile
// partial), 2 groups, blocks walking several tile pairs (M 3136 x N 2048), the tensor-map
// store, fp32 and 16-bit staging, a tile a block and persistent ones; every output compared
// (or 100,000 sampled on the largest).
TEST_CASE("igemm: A multicast across 2-block clusters: M, N and K edges, groups, several tiles a block") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  const std::vector<const char*> tiles = {"wg128x128p/ws+s16+mc", "wg128x128p/ws+mc", "wg192x128/ws+s16+mc",
                                          "wg128x64p/ws+s16+mc", "wg128x128p/ws+s16+bs+mc"};
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {16, 256, 7, 7, 256, 1, 1, 0, 1}, Epi::bias_relu},               // M 784
      {DataType::bfloat16, Lay::nhwc, {16, 200, 9, 9, 512, 1, 1, 0, 1}, Epi::cbna},                // K 200
      {DataType::half, Lay::nhwc, {8, 64, 10, 10, 200, 1, 1, 0, 1}, Epi::bn_act_residual},         // N 200
      {DataType::bfloat16, Lay::nhwc, {64, 256, 8, 8, 512, 1, 1, 0, 1, 1, 2}, Epi::bias_relu},     // 2 groups
      {DataType::half, Lay::nhwc, {64, 128, 7, 7, 2048, 1, 1, 0, 1}, Epi::bias_relu},              // 400 tiles
  };
  int walked = 0;  // runs whose blocks walk several tile pairs
  const auto expect = [&walked](const igemm::Config& config, const LayerCase&, const std::string&) {
    REQUIRE(config.warp_specialized);
    REQUIRE(config.cluster_blocks == 2);
    CHECK(config.grid_x % 2 == 0);
    walked += config.grid_x < config.tiles ? 1 : 0;
  };
  run_cases(tiles, cases, 2200, expect, 100000);
  CHECK(walked >= 4);
}

// The transposed GEMM ("/tr": the weights as wgmma's A, x's pixels as its B, the accumulators
// stored transposed into the store's staging): pixel widths 64 to 208 (the fitted
// one of "/tr" alone: 96 on the ResNet-50 layer 1x1 2048->512 7x7, 132 tiles), M off the width
// (784 over 96), N off the channel tile (200 over 128), K 200 (the last k-tile partial), one
// warpgroup's 64 channels and three's 192, a per-pixel residual in the epilogue, blocks walking
// several tiles, 3x3 windows by the im2col map (padding, stride 2), NCHW x re-laid out and y
// stored along the pixels, 2 groups, 64 output channels on one warpgroup; every output checked
// for a write, 100,000 compared.
TEST_CASE("igemm: transposed GEMM: pixel widths, M, N and K edges, several tiles a block") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  const std::vector<const char*> tiles = {"/tr", "wg128x128p/tr+n64", "wg128x128p/tr+n208", "wg64x128p/tr+n96",
                                          "wg192x128p/tr+n112"};
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {16, 256, 7, 7, 256, 1, 1, 0, 1}, Epi::bias_relu},        // M 784
      {DataType::bfloat16, Lay::nhwc, {16, 200, 9, 9, 512, 1, 1, 0, 1}, Epi::cbna},         // K 200
      {DataType::half, Lay::nhwc, {8, 64, 10, 10, 200, 1, 1, 0, 1}, Epi::bn_act_residual},  // N 200
      {DataType::half, Lay::nhwc, {64, 2048, 7, 7, 512, 1, 1, 0, 1}, Epi::bias_relu},       // ResNet-50's
      {DataType::bfloat16, Lay::nhwc, {64, 128, 7, 7, 2048, 1, 1, 0, 1}, Epi::bias_relu},   // many tiles a block
      {DataType::half, Lay::nhwc, {3, 64, 13, 11, 200, 3, 3, 1, 1}, Epi::bias_relu},        // 3x3 by im2col, padded
      {DataType::bfloat16, Lay::nhwc, {4, 128, 15, 17, 136, 3, 3, 1, 2}, Epi::cbna},        // stride 2, odd sizes
      {DataType::half, Lay::nchw, {8, 512, 7, 7, 200, 1, 1, 0, 1}, Epi::bn_act_residual},   // NCHW: x re-laid out
      {DataType::bfloat16, Lay::nchw, {2, 128, 12, 12, 128, 3, 3, 1, 1}, Epi::cbna},        // NCHW 3x3
      {DataType::half, Lay::nhwc, {4, 256, 8, 8, 256, 1, 1, 0, 1, 1, 2}, Epi::bias_relu},   // 2 groups
      {DataType::bfloat16, Lay::nhwc, {4, 64, 20, 20, 64, 3, 3, 1, 1}, Epi::bias_relu},     // N 64: one warpgroup
  };
  int walked = 0;  // runs whose blocks walk several tiles
  const auto expect = [&walked](const igemm::Config& config, const LayerCase& c, const std::string& tile) {
    REQUIRE(config.transposed);
    CHECK(config.tma_store == (c.lay == Lay::nhwc && c.shape.groups == 1));  // else stored in vectors
    if (tile == "/tr") CHECK(config.tile.bm == (c.shape.k / c.shape.groups <= 64 ? 64 : 128));
    walked += config.grid_x < config.tiles ? 1 : 0;
  };
  run_cases(tiles, cases, 2400, expect, 100000);
  CHECK(walked >= 4);
}

// The heuristic's transposed GEMM (no tile forced): the ResNet-50 layers at batch 64 that it
// takes (3x3 of narrow C and K, 1x1 of wide C and K, strided ones by im2col), in both 16-bit
// types and three epilogues; and three it leaves (the heuristic's tile fills the waves; less
// than a wave of 128x128 outputs; NCHW x).
TEST_CASE("igemm: the heuristic's transposed GEMM on the ResNet-50 layers it takes (batch 64)") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  const std::vector<LayerCase> taken = {
      {DataType::half, Lay::nhwc, {64, 64, 56, 56, 64, 3, 3, 1, 1}, Epi::bias_relu},
      {DataType::bfloat16, Lay::nhwc, {64, 128, 56, 56, 128, 3, 3, 1, 2}, Epi::cbna},
      {DataType::half, Lay::nhwc, {64, 128, 28, 28, 128, 3, 3, 1, 1}, Epi::bn_act_residual},
      {DataType::bfloat16, Lay::nhwc, {64, 512, 28, 28, 1024, 1, 1, 0, 2}, Epi::bias_relu},
      {DataType::half, Lay::nhwc, {64, 1024, 14, 14, 512, 1, 1, 0, 1}, Epi::cbna},
      {DataType::half, Lay::nhwc, {64, 512, 7, 7, 2048, 1, 1, 0, 1}, Epi::bias_relu},
      {DataType::bfloat16, Lay::nhwc, {64, 1024, 14, 14, 2048, 1, 1, 0, 2}, Epi::bn_act_residual},
  };
  run_cases({""}, taken, 2600, [](const igemm::Config& config, const LayerCase& c, const std::string&) {
    CHECK(config.transposed);
    if (c.shape.r > 1 || c.shape.stride > 1) CHECK(config.tile.stages <= 4);  // x by im2col: four at most
  }, 100000);
  const std::vector<LayerCase> left = {
      {DataType::half, Lay::nhwc, {64, 1024, 14, 14, 256, 1, 1, 0, 1}, Epi::bias_relu},
      {DataType::half, Lay::nhwc, {64, 2048, 7, 7, 512, 1, 1, 0, 1}, Epi::bias_relu},
      {DataType::half, Lay::nchw, {64, 64, 56, 56, 64, 3, 3, 1, 1}, Epi::cbna},
  };
  run_cases({""}, left, 2650, [](const igemm::Config& config, const LayerCase&, const std::string&) {
    CHECK_FALSE(config.transposed);
  }, 100000);
}

// A by im2col tensor map ("/im2col" with "/ws": one box a filter tap, the windows' padding and
// strides applied by the copy engine): 3x3 with padding (M and N off the tile, windows across
// image edges), stride 2, a 1x1 with stride 2, dilation 2 on a 5x5, 2 groups of 128, NCHW x
// re-laid out first; plain and persistent tiles, fp32 and 16-bit staging.
TEST_CASE("igemm: im2col tensor maps for A: padding, strides, dilation, groups, re-laid-out x") {
  if (!igemm::has_warpgroup_mma(device_target().arch)) {
    MESSAGE("no wgmma on " << device_target().arch << ": skipped");
    return;
  }
  const std::vector<const char*> tiles = {"wg192x128/ws+im2col", "wg128x128/ws+im2col+s16", "wg128x64p/ws+im2col+s16",
                                          "wg128x128p/ws+im2col", "wg192x128p/ws+im2col+s16"};
  const std::vector<LayerCase> cases = {
      {DataType::half, Lay::nhwc, {3, 64, 13, 11, 200, 3, 3, 1, 1}, Epi::bias_relu},           // M 429, N 200
      {DataType::bfloat16, Lay::nhwc, {4, 128, 15, 17, 136, 3, 3, 1, 2}, Epi::cbna},           // stride 2, odd sizes
      {DataType::half, Lay::nhwc, {8, 64, 20, 20, 256, 1, 1, 0, 2}, Epi::bn_act_residual},     // 1x1 stride 2
      {DataType::half, Lay::nhwc, {2, 64, 16, 16, 72, 5, 5, 4, 1, 2}, Epi::bias_relu},         // 5x5, dilation 2
      {DataType::bfloat16, Lay::nhwc, {2, 256, 9, 10, 144, 3, 3, 1, 1, 1, 2}, Epi::bias_relu}, // 2 groups of 128
      {DataType::half, Lay::nchw, {2, 128, 12, 12, 128, 3, 3, 1, 1}, Epi::cbna},               // x re-laid out
      {DataType::half, Lay::nhwc, {32, 64, 28, 28, 256, 3, 3, 1, 1}, Epi::bias_relu},          // many tiles a block
  };
  const auto expect = [](const igemm::Config& config, const LayerCase&, const std::string&) {
    REQUIRE(config.warp_specialized);
    CHECK(config.tma_a_im2col);
  };
  run_cases(tiles, cases, 2000, expect, 100000);
}

// NCHW 1x1 layers whose A is copied along the pixels (cp.async of 8 or 4 values into an
// MN-major tile: wgmma's transposed A, ldmatrix.trans for mma.sync), on every tile kind:
// H*W = 144 and 72 (16-byte copies), 100 and 36 (8-byte copies, so a chunk's second half
// starts the next image), M, N and K off the tile, several k-tiles, GEMM K below one, groups.
TEST_CASE("igemm: NCHW 1x1 A copied along the pixels: both copy widths, image edges, every tile") {
  struct Case {
    Shape shape;
    Epi epi;
    int lanes;
  };
  const Case cases[] = {
      {{3, 40, 12, 12, 72, 1, 1, 0, 1}, Epi::bias_relu, 8},         // M 432, K 40: one partial k-tile
      {{2, 200, 10, 10, 48, 1, 1, 0, 1}, Epi::bn_act_residual, 4},  // K 200: 4 k-tiles of 64, 7 of 32
      {{3, 64, 6, 6, 136, 1, 1, 0, 1, 1, 2}, Epi::cbna, 4},         // 2 groups of 32 -> 68
      {{2, 24, 9, 8, 40, 1, 1, 0, 1}, Epi::none, 8},                // K 24: one stage
  };
  std::vector<const char*> tiles = {"128x128",   "128x128w8", "256x64",       "128x64",    "64x64",
                                    "128x32",    "128x128k64", "128x128w8k64", "256x64k64", "128x64k64",
                                    "128x64w8k64", "128x64k64p", "64x64k64p"};
  if (igemm::has_warpgroup_mma(device_target().arch)) {
    for (const char* t : {"wg128x128", "wg128x64", "wg64x128", "wg128x256", "wg256x128", "wg192x128", "wg128x128p",
                          "wg64x128p", "wg128x64p"}) {
      tiles.push_back(t);
    }
  }
  struct Job {
    DataType type;
    const char* tile;
    const Case* c;
  };
  std::vector<Job> jobs;
  std::size_t rotate = 0;
  for (const char* tile : tiles) {
    for (DataType type : {DataType::half, DataType::bfloat16}) jobs.push_back({type, tile, &cases[rotate++ % std::size(cases)]});
  }
  std::vector<std::unique_ptr<IgemmRun>> runs;
  std::vector<igemm::Config> configs;
  std::vector<std::future<std::unique_ptr<Invoker>>> builds;
  std::uint64_t seed = 1300;
  for (const Job& j : jobs) {
    runs.push_back(std::make_unique<IgemmRun>(j.type, Lay::nchw, j.c->shape, j.c->epi, false, seed++));
    configs.push_back(runs.back()->config(j.tile));
    builds.push_back(
        std::async(std::launch::async, [r = runs.back().get(), c = configs.back()] { return r->build(c); }));
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string what = std::string(hipfuse::name_of(jobs[i].type)) + " " + name_of(jobs[i].c->epi) + " " +
                             configs[i].describe();
    CAPTURE(what);
    CHECK(std::string(configs[i].tile.name()) == jobs[i].tile);
    CHECK(configs[i].a_loader == igemm::Loader::pixels);
    CHECK(configs[i].a_pixel_lanes == jobs[i].c->lanes);
    std::unique_ptr<Invoker> invoker = builds[i].get();
    runs[i]->poison();
    HF_REQUIRE_HIP(runs[i]->launch(*invoker));
    HF_REQUIRE_HIP(hipDeviceSynchronize());
    runs[i]->check(false);
  }
  // x off the copies' alignment (one value past it): refused, nothing written.
  IgemmRun run(DataType::half, Lay::nchw, cases[0].shape, Epi::bias_relu, false, 1399);
  auto invoker = run.build(run.config());
  DeviceBuffer shifted(run.x().buffer.bytes() + 2);
  run.poison();
  CHECK(run.launch(*invoker, static_cast<char*>(shifted.data()) + 2) == hipErrorInvalidValue);
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  CHECK(run.unwritten() == run.outputs());
}

namespace {

struct Layer {
  const char* name;
  DataType type;
  Shape shape;
  double cudnn_us;  // best cuDNN conv+bias+ReLU measured on this H200 by others (median of 30)
};
const Layer kLayers[] = {
    {"1x1 64->256 56x56", DataType::half, {64, 64, 56, 56, 256, 1, 1, 0, 1}, 283},
    {"3x3 64->64 56x56", DataType::half, {64, 64, 56, 56, 64, 3, 3, 1, 1}, 121},
    {"3x3 256->256 14x14", DataType::half, {64, 256, 14, 14, 256, 3, 3, 1, 1}, 73},
    {"1x1 64->256 56x56", DataType::float32, {64, 64, 56, 56, 256, 1, 1, 0, 1}, 308},
};

// Median and minimum of 20 timed launches (events) after 5 untimed ones; the input rotates
// over three copies so that a 26 MB fp16 input is not served from the 50 MB L2.
std::pair<double, double> time_invoker(IgemmRun& run, const Invoker& invoker) {
  const std::size_t xbytes = run.x().buffer.bytes();
  void* copies[2] = {nullptr, nullptr};
  for (auto& c : copies) {
    HF_REQUIRE_HIP(hipMalloc(&c, xbytes));
    HF_REQUIRE_HIP(hipMemcpy(c, run.x().data(), xbytes, hipMemcpyDeviceToDevice));
  }
  const void* inputs[3] = {run.x().data(), copies[0], copies[1]};
  for (int i = 0; i < 5; ++i) HF_REQUIRE_HIP(run.launch(invoker, inputs[i % 3]));
  hipEvent_t start, stop;
  HF_REQUIRE_HIP(hipEventCreate(&start));
  HF_REQUIRE_HIP(hipEventCreate(&stop));
  std::vector<float> times;
  for (int i = 0; i < 20; ++i) {
    HF_REQUIRE_HIP(hipEventRecord(start, nullptr));
    HF_REQUIRE_HIP(run.launch(invoker, inputs[i % 3]));
    HF_REQUIRE_HIP(hipEventRecord(stop, nullptr));
    HF_REQUIRE_HIP(hipEventSynchronize(stop));
    float ms = 0;
    HF_REQUIRE_HIP(hipEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1000.0f);
  }
  HF_REQUIRE_HIP(hipEventDestroy(start));
  HF_REQUIRE_HIP(hipEventDestroy(stop));
  for (auto& c : copies) HF_REQUIRE_HIP(hipFree(c));
  std::sort(times.begin(), times.end());
  return {0.5 * (times[9] + times[10]), times[0]};
}

void print_header() {
  std::printf("\n%-20s %-5s %-5s %-52s %9s %9s %8s %8s %7s\n", "layer", "type", "lay", "config", "median_us", "min_us",
              "TFLOP/s", "GB/s", "cuDNN/x");
}

void print_row(const Layer& l, Lay lay, const igemm::Config& config, std::pair<double, double> t) {
  const Shape& s = l.shape;
  const double p = (s.h + 2 * s.pad - s.r) / s.stride + 1, q = (s.w + 2 * s.pad - s.s) / s.stride + 1;
  const double flops = 2.0 * s.n * p * q * s.k * s.c * s.r * s.s;
  const double bytes = (double(s.n) * s.c * s.h * s.w + double(s.n) * s.k * p * q + double(s.k) * s.c * s.r * s.s) *
                       static_cast<double>(size_of(l.type));
  std::printf("%-20s %-5s %-5s %-52s %9.1f %9.1f %8.1f %8.0f %7.2f\n", l.name, hipfuse::name_of(l.type), name_of(lay),
              config.describe().c_str(), t.first, t.second, flops / t.first * 1e-6, bytes / t.first * 1e-3,
              l.cudnn_us / t.first);
  std::fflush(stdout);
}

}  // namespace

TEST_CASE("igemm: timing of the reference layers (batch 64, conv+bias+relu)") {
  print_header();
  for (const Layer& l : kLayers) {
    for (Lay lay : {Lay::nhwc, Lay::nchw}) {
      IgemmRun run(l.type, lay, l.shape, Epi::bias_relu, false, 500);
      const igemm::Config config = run.config();
      CAPTURE(config.describe());
      auto invoker = run.build(config);
      run.poison();
      HF_REQUIRE_HIP(run.launch(*invoker));
      HF_REQUIRE_HIP(hipDeviceSynchronize());
      run.check(false, 20000);
      print_row(l, lay, config, time_invoker(run, *invoker));
    }
  }
}

namespace {

// More ResNet-50 layers for the sweep (cuDNN column: its fused call in the 2026-11-30 harness run).
const Layer kSweepExtra[] = {
    {"3x3 128->128 28x28", DataType::half, {64, 128, 28, 28, 128, 3, 3, 1, 1}, 83.5},
    {"3x3 128->128 56 s2", DataType::half, {64, 128, 56, 56, 128, 3, 3, 1, 2}, 56.4},
    {"3x3 512->512 7x7", DataType::half, {64, 512, 7, 7, 512, 3, 3, 1, 1}, 55.8},
    {"1x1 1024->256 14x14", DataType::half, {64, 1024, 14, 14, 256, 1, 1, 0, 1}, 33.4},
    {"1x1 2048->512 7x7", DataType::half, {64, 2048, 7, 7, 512, 1, 1, 0, 1}, 42.3},
};

}  // namespace

// Times `tiles` (or the SIMT ones for fp32) on `layers` in `layouts`, each output checked.
void sweep_tiles(const std::vector<Layer>& layers, const std::vector<std::string>& matrix,
                 const std::vector<Lay>& layouts = {Lay::nhwc, Lay::nchw}) {
  const std::vector<std::string> simt = {"simt128x128", "simt128x64", "simt64x64", "simt128x128k16", "simt128x64k16"};
  print_header();
  for (const Layer& l : layers) {
    for (Lay lay : layouts) {
      IgemmRun run(l.type, lay, l.shape, Epi::bias_relu, false, 600);
      const auto& tiles = l.type == DataType::float32 ? simt : matrix;
      // Compile every tile at once (hipRTC runs on the host's cores).
      std::vector<std::future<std::unique_ptr<Invoker>>> builds;
      std::vector<igemm::Config> configs;
      for (const auto& tile : tiles) {
        configs.push_back(run.config(tile));
        builds.push_back(std::async(std::launch::async, [&run, c = configs.back()] { return run.build(c); }));
      }
      for (std::size_t i = 0; i < tiles.size(); ++i) {
        CAPTURE(configs[i].describe());
        std::unique_ptr<Invoker> invoker = builds[i].get();
        run.poison();
        HF_REQUIRE_HIP(run.launch(*invoker));
        HF_REQUIRE_HIP(hipDeviceSynchronize());
        run.check(false, 2000);
        print_row(l, lay, configs[i], time_invoker(run, *invoker));
      }
    }
  }
}

// Not part of the regular suite ("*" skips it): times every tile on the reference layers and
// a few more, the data behind the heuristic (docs/PERF_NOTES.md). Run with -tc="igemm: tile sweep*".
TEST_CASE("igemm: tile sweep on the reference layers" * doctest::skip()) {
  std::vector<Layer> layers(std::begin(kLayers), std::end(kLayers));
  layers.insert(layers.end(), std::begin(kSweepExtra), std::end(kSweepExtra));
  sweep_tiles(layers, {"128x128",    "128x128w8",    "256x64",    "128x64",    "64x64",     "128x128k64",
                       "128x128w8k64", "256x64k64",  "128x64k64", "128x64w8k64", "128x64k64p", "wg128x128",
                       "wg128x64",   "wg64x128",     "wg128x256", "wg256x128", "wg192x128", "wg128x128/sk",
                       "wg128x256/sk"});  // /sk: stream-K
}

// Not part of the regular suite: the tiles that fit 64 output channels on the folded stem.
TEST_CASE("igemm: tile sweep of the folded stem" * doctest::skip()) {
  const std::vector<Layer> layers = {
      {"7x7 3->64 224 s2", DataType::half, {64, 3, 224, 224, 64, 7, 7, 3, 2}, 164.3},
  };
  sweep_tiles(layers, {"128x64", "128x64k64", "128x64w8k64", "128x64k64p", "256x64", "256x64k64", "64x64",
                       "wg128x64", "wg128x64/ws", "wg128x64p/ws", "wg128x64p/ws+s16", "wg64x128", "wg128x128/ws+s16"});
  // (v20 also forced the im2col map modes on wg128x64, wg128x64p, wg128x128p and wg192x128: the
  // configurations came back without the map, none ahead of 256x64: docs/gpu-runs/2026-12-03-v20.)
}

// The ResNet-50 layers (batch 64) that the heuristic gives to wgmma; M = 12544 (14x14) and
// 3136 (7x7) make partly empty last waves for some tiles on 132 SMs.
std::vector<Layer> wgmma_layers() {
  return {
      {"3x3 128->128 56 s2", DataType::half, {64, 128, 56, 56, 128, 3, 3, 1, 2}, 0},
      {"3x3 128->128 28x28", DataType::half, {64, 128, 28, 28, 128, 3, 3, 1, 1}, 0},
      {"1x1 512->256 28x28", DataType::half, {64, 512, 28, 28, 256, 1, 1, 0, 1}, 0},
      {"3x3 256->256 28 s2", DataType::half, {64, 256, 28, 28, 256, 3, 3, 1, 2}, 0},
      {"1x1 256->1024 14x14", DataType::half, {64, 256, 14, 14, 1024, 1, 1, 0, 1}, 0},
      {"1x1 512->1024 28 s2", DataType::half, {64, 512, 28, 28, 1024, 1, 1, 0, 2}, 0},
      {"1x1 1024->256 14x14", DataType::half, {64, 1024, 14, 14, 256, 1, 1, 0, 1}, 0},
      {"3x3 256->256 14x14", DataType::half, {64, 256, 14, 14, 256, 3, 3, 1, 1}, 0},
      {"1x1 1024->512 14x14", DataType::half, {64, 1024, 14, 14, 512, 1, 1, 0, 1}, 0},
      {"3x3 512->512 14 s2", DataType::half, {64, 512, 14, 14, 512, 3, 3, 1, 2}, 0},
      {"1x1 512->2048 7x7", DataType::half, {64, 512, 7, 7, 2048, 1, 1, 0, 1}, 0},
      {"1x1 1024->2048 14 s2", DataType::half, {64, 1024, 14, 14, 2048, 1, 1, 0, 2}, 0},
      {"1x1 2048->512 7x7", DataType::half, {64, 2048, 7, 7, 512, 1, 1, 0, 1}, 0},
      {"3x3 512->512 7x7", DataType::half, {64, 512, 7, 7, 512, 3, 3, 1, 1}, 0},
  };
}

// Not part of the regular suite: the wgmma tiles on those layers.
TEST_CASE("igemm: tile sweep of the wgmma tiles on the ResNet-50 wgmma layers" * doctest::skip()) {
  const std::vector<Layer> layers = wgmma_layers();
  sweep_tiles(layers, {"wg192x128", "wg192x128/ws", "wg192x128/ws+s16", "wg128x256", "wg128x256/ws", "wg128x128",
                       "wg128x128/ws", "wg128x128/ws+s16", "wg256x128", "wg256x128/ws", "wg64x128"});
  // /ws: warp-specialised; +s16: 16-bit epilogue staging
}

// The memory-bound ResNet-50 1x1 layers (batch 64, GEMM K <= 512) of the sweeps below. cuDNN
// column: its fused channels-last call (spaced, docs/perf-runs/2026-12-01-peers-spaced/).
std::vector<Layer> memory_bound_layers() {
  return {
      {"1x1 64->256 56x56", DataType::half, {64, 64, 56, 56, 256, 1, 1, 0, 1}, 42.8},
      {"1x1 256->64 56x56", DataType::half, {64, 256, 56, 56, 64, 1, 1, 0, 1}, 39.7},
      {"1x1 64->64 56x56", DataType::half, {64, 64, 56, 56, 64, 1, 1, 0, 1}, 19.5},
      {"1x1 256->128 56x56", DataType::half, {64, 256, 56, 56, 128, 1, 1, 0, 1}, 46.7},
      {"1x1 128->512 28x28", DataType::half, {64, 128, 28, 28, 512, 1, 1, 0, 1}, 26.3},
      {"1x1 512->128 28x28", DataType::half, {64, 512, 28, 28, 128, 1, 1, 0, 1}, 24.4},
  };
}

// Layers of `from` that `keep` holds.
template <class Keep>
std::vector<Layer> layers_where(std::vector<Layer> from, Keep keep) {
  from.erase(std::remove_if(from.begin(), from.end(), [&](const Layer& l) { return !keep(l.shape); }), from.end());
  return from;
}

// The wgmma layers a pixels x channels map cannot read (3x3, and 1x1 with stride 2): A comes by
// im2col tensor map or the loader warpgroup's cp.async.
std::vector<Layer> im2col_layers() {
  return layers_where(wgmma_layers(), [](const Shape& s) { return s.r == 3 || s.stride == 2; });
}

// Not part of the regular suite: x's re-layout before the GEMM ("/serial") and beside it
// ("/stream"), on the heuristic's tile for each NCHW 3x3 layer (the 7x7 one cannot stream: its
// planes take the shared tile): the data behind igemm::Config::stream_input's rule
// (docs/PERF_NOTES.md v23).
TEST_CASE("igemm: tile sweep of the streamed NCHW re-layout" * doctest::skip()) {
  std::vector<Layer> layers = {{"3x3 64->64 56x56", DataType::half, {64, 64, 56, 56, 64, 3, 3, 1, 1}, 0}};
  for (const Layer& l : layers_where(wgmma_layers(), [](const Shape& s) { return s.r == 3; })) layers.push_back(l);
  sweep_tiles(layers, {"/serial", "/stream"}, {Lay::nchw});
}

// Not part of the regular suite: the heuristic's tile ("") on the NCHW 1x1 layers of GEMM K
// 128-512 against the persistent tiles that led on the NCHW 1x1 64->256 (v22's sweep).
TEST_CASE("igemm: tile sweep of the NCHW 1x1 layers of GEMM K 128-512" * doctest::skip()) {
  const auto k128_512 = [](const Shape& s) { return s.r == 1 && s.stride == 1 && s.c >= 128 && s.c <= 512; };
  std::vector<Layer> layers = layers_where(memory_bound_layers(), k128_512);
  for (const Layer& l : layers_where(wgmma_layers(), k128_512)) layers.push_back(l);
  sweep_tiles(layers, {"", "wg128x128p/s16", "wg128x128p/ws+s16", "wg128x64p/ws+s16", "128x64k64p/s16"}, {Lay::nchw});
}

// Not part of the regular suite: A by im2col tensor map against the loader warpgroup's cp.async
// on the layers a pixels x channels map cannot read (3x3, and 1x1 with stride 2), each layer's
// v14 choice first.
TEST_CASE("igemm: tile sweep of the im2col tensor maps" * doctest::skip()) {
  std::vector<Layer> layers = {{"3x3 64->64 56x56", DataType::half, {64, 64, 56, 56, 64, 3, 3, 1, 1}, 0}};
  for (const Layer& l : im2col_layers()) layers.push_back(l);
  sweep_tiles(layers, {"wg192x128/ws+s16", "wg192x128/ws+im2col+s16", "wg128x128/ws+s16", "wg128x128/ws+im2col+s16",
                       "wg128x64p/ws+im2col+s16", "wg128x128p/ws+im2col+s16", "128x64k64/s16", "128x128/s16"});
}

// Not part of the regular suite: the memory-bound 1x1 layers on the persistent warp-specialised
// tiles (tensor-map loads running on into the next tile) against the persistent tiles without
// them (v13's choices; since v14 the heuristic takes wg128x64p/ws on channels-last x).
TEST_CASE("igemm: tile sweep of the persistent warp-specialised tiles" * doctest::skip()) {
  const std::vector<Layer> layers = memory_bound_layers();
  sweep_tiles(layers, {"wg128x128p/s16", "wg128x128p/ws+s16", "wg128x128p/ws", "wg128x64p/ws+s16", "wg64x128p/ws+s16",
                       "128x64k64p/s16", "64x64k64p/s16"});
}

// Not part of the regular suite: the compute-bound 1x1 stride-1 layers (A by a pixels x
// channels map) on the persistent warp-specialised tiles, whose loads run on into the next
// tile while this one is stored (10-28% over the same tile one-tile-a-block with im2col, v15),
// against the heuristic's choices (cc1bf40: wg192x128/ws on 1024->256 and 1024->512 14x14,
// wg128x128/ws on 2048->512 7x7, wg128x256 on 512->256 28x28 and 256->1024 14x14, wg64x128 on
// 512->2048 7x7). With 16-bit staging wg128x256p fits three stages (217 KB).
TEST_CASE("igemm: tile sweep on the compute-bound 1x1 layers: persistent warp-specialised tiles" * doctest::skip()) {
  const std::vector<Layer> layers =
      layers_where(wgmma_layers(), [](const Shape& s) { return s.r == 1 && s.stride == 1; });
  sweep_tiles(layers, {"wg192x128/ws+s16", "wg128x128/ws+s16", "wg128x256/s16", "wg64x128/s16", "wg128x128p/ws+s16",
                       "wg128x256p/ws+s16", "wg64x128p/ws+s16", "wg128x64p/ws+s16", "wg192x128p/ws+s16",
                       "wg128x128/sk+s16"});  // /sk: stream-K (the 7x7 layers' partly empty waves)
}

// Not part of the regular suite: the persistent 192-row tile with A by im2col map against the
// heuristic's two im2col tiles (wg192x128/ws, wg128x128p/ws) on the 3x3 and strided 1x1 layers
// of N >= 128, channels-last.
TEST_CASE("igemm: tile sweep of the persistent 192-row im2col tile" * doctest::skip()) {
  const std::vector<Layer> layers = im2col_layers();
  sweep_tiles(layers, {"wg192x128/ws+im2col+s16", "wg128x128p/ws+im2col+s16", "wg192x128p/ws+im2col+s16"},
              {Lay::nhwc});
}

// Not part of the regular suite: the memory-bound 1x1 layers on the mma.sync tiles (128x64k64p,
// 128x64: NCHW's choices) against the persistent wgmma ones and mma.sync with more resident
// blocks (64x64k64p), with and without 16-bit staging. wg128x256p fits only GEMM K 64 (one
// k-tile), so it runs on those layers alone.
TEST_CASE("igemm: tile sweep on the memory-bound 1x1 layers" * doctest::skip()) {
  const std::vector<Layer> layers = memory_bound_layers();
  sweep_tiles(layers, {"128x64k64p", "128x64k64p/s16", "128x64", "wg64x128p", "wg128x64p", "wg128x128p",
                       "wg128x128p/s16", "64x64k64p", "64x64k64p/s16", "wg128x64/ws", "wg64x128/ws", "wg128x128/ws",
                       "wg128x256/ws"});
  // /ws: warp-specialised, tensor maps on NHWC; /s16: 16-bit epilogue staging
  std::vector<Layer> one_k_tile;
  for (const Layer& l : layers) {
    if (l.shape.c * l.shape.r * l.shape.s == 64) one_k_tile.push_back(l);
  }
  sweep_tiles(one_k_tile, {"wg128x256p"});
}
