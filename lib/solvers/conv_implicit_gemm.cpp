#include "solvers/conv_implicit_gemm.h"

#include "common/env.h"
#include "common/error.h"
#include "common/igemm_args.h"
#include "common/kernel_args.h"
#include "common/log.h"
#include "runtime/platform.h"
#include "solvers/chain_binding.h"
#include "solvers/chain_codegen.h"
#include "solvers/invoker_support.h"
#include "solvers/plan_header.h"
#include "solvers/plan_parts.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace hipfuse {

namespace {

igemm::Elem elem_of(DataType t) {
  switch (t) {
    case DataType::half: return igemm::Elem::f16;
    case DataType::bfloat16: return igemm::Elem::bf16;
    default: return igemm::Elem::f32;
  }
}

std::array<std::int64_t, 4> strides4(const TensorDesc& t) {
  return {t.strides[0], t.strides[1], t.strides[2], t.strides[3]};
}

const ConvForwardOp& conv_of(const PlanParts& parts) { return std::get<ConvForwardOp>(parts.conv->op); }

// The weights as the GEMM reads them: their own descriptor, or K x C/G x R x S packed
// channels-last (what conv_igemm_pack.hip writes) when the configuration packs them, with the
// filter width folded into the channels (K x C' x R x 1) when it folds.
TensorDesc gemm_weights(const ConvForwardOp& conv, const igemm::Config& config) {
  if (!config.pack_weights) return conv.weights;
  std::vector<std::int64_t> lengths = conv.weights.lengths;
  if (config.fold.active()) lengths = {lengths[0], config.fold.channels, lengths[2], 1};
  return TensorDesc::packed(conv.weights.type, lengths, Layout::nhwc);
}

// x as the GEMM reads it: its own descriptor, or packed NHWC (what hf_igemm_pack_input writes),
// N x C' x H x Q when the filter width is folded into the channels (y: the conv's output).
TensorDesc gemm_input(const TensorDesc& x, const TensorDesc& y, const igemm::Config& config) {
  if (!config.pack_input) return x;
  std::vector<std::int64_t> lengths = x.lengths;
  if (config.fold.active()) lengths = {lengths[0], config.fold.channels, lengths[2], y.lengths[3]};
  return TensorDesc::packed(x.type, lengths, Layout::nhwc);
}

// The kernels' offset type: int while every tensor they address, as given and as the GEMM
// reads it, spans fewer than 2^31 elements.
std::string offset_type_of(const PlanParts& parts, const igemm::Config& config) {
  const TensorDesc& x = parts.conv->input;
  const TensorDesc& y = parts.conv->output;
  const ConvForwardOp& conv = conv_of(parts);
  const std::int64_t span = std::max({x.span(), conv.weights.span(), y.span(), gemm_input(x, y, config).span(),
                                      gemm_weights(conv, config).span()});
  return span < (std::int64_t{1} << 31) ? "int" : "long long";
}

rt::SourceFile plan_header(const FusionPlan& plan, const PlanParts& parts, const igemm::Config& config) {
  const ConvForwardOp& conv = conv_of(parts);
  const TensorDesc& x = parts.conv->input;
  const TensorDesc& y = parts.conv->output;
  PlanHeader h(plan);
  h.include("common/pointwise_chain.h");
  h.alias("data_t", cpp_type(x.type));
  h.alias("offset_t", offset_type_of(parts, config));
  h.alias("XGeom", geometry_type(gemm_input(x, y, config)));
  h.alias("XSourceGeom", geometry_type(x));
  h.alias("YGeom", geometry_type(y));
  h.alias("WGeom", geometry_type(gemm_weights(conv, config)));
  h.alias("WSourceGeom", geometry_type(conv.weights));
  h.int_constant("kGroups", conv.conv.groups);
  // Folded (igemm::WidthFold): the GEMM's convolution is R x 1, stride 1 and no padding along
  // the width, whose windows the re-layout took (hfi::Fold*).
  const bool fold = config.fold.active();
  h.index_constant("kStrideH", conv.conv.strides[0]);
  h.index_constant("kStrideW", fold ? 1 : conv.conv.strides[1]);
  h.index_constant("kPadH", conv.conv.pads[0]);
  h.index_constant("kPadW", fold ? 0 : conv.conv.pads[1]);
  h.index_constant("kDilationH", conv.conv.dilations[0]);
  h.index_constant("kDilationW", fold ? 1 : conv.conv.dilations[1]);
  // With x re-laid out first, the prologue runs in that kernel (PackPrologue, on x as given)
  // and the GEMM's own prologue is empty; the slots stay the plan's either way.
  emit_chain(h, "PackPrologue", parts.prologue, 0, "XSourceGeom");
  emit_chain(h, "Prologue", config.pack_input ? std::vector<const FusionOp*>{} : parts.prologue, 0, "XGeom");
  emit_chain(h, "Epilogue", parts.epilogue, static_cast<int>(parts.prologue.size()), "YGeom");
  return h.file();
}

// An operand read by tensor-map copies (igemm::Config::tma_a / tma_b): the 2-D matrix that
// the map covers and the box of one k-tile, or (tma_a_im2col) the im2col map's shape; the map
// itself is encoded at launch, when the operand's address is known.
struct TensorMapShape {
  bool used = false;
  std::uint64_t columns = 0, rows = 0, row_stride_bytes = 0;
  unsigned box_columns = 0, box_rows = 0;
  bool im2col = false;
  rt::Im2colMap windows{};

  bool encode(hf::TensorMap& map, const void* base) const {
    if (im2col) return rt::encode_tensor_map_im2col(&map, base, windows);
    return rt::encode_tensor_map_2d(&map, base, columns, rows, row_stride_bytes, box_columns, box_rows);
  }
};

// x (channels-last as the GEMM reads it) as convolution windows: BM of them a copy, BK channels
// of each, origins stepping by the stride from -pad to the last output pixel's.
rt::Im2colMap input_windows(const igemm::Problem& p, const igemm::Config& c) {
  const std::uint64_t elem = p.elem_bytes();
  const auto st = igemm::input_pixel_strides(p, c);  // image, row, pixel
  rt::Im2colMap m{};
  m.dims[0] = static_cast<std::uint64_t>(p.c);
  m.dims[1] = static_cast<std::uint64_t>(p.w);
  m.dims[2] = static_cast<std::uint64_t>(p.h);
  m.dims[3] = static_cast<std::uint64_t>(p.n);
  m.strides_bytes[0] = static_cast<std::uint64_t>(st[2]) * elem;
  m.strides_bytes[1] = static_cast<std::uint64_t>(st[1]) * elem;
  m.strides_bytes[2] = static_cast<std::uint64_t>(st[0]) * elem;
  const igemm::WindowCorners wc = igemm::window_corners(p);  // in [-128, 127]: im2col_fits
  m.lower[0] = static_cast<int>(wc.lower_w);
  m.lower[1] = static_cast<int>(wc.lower_h);
  m.upper[0] = static_cast<int>(wc.upper_w);
  m.upper[1] = static_cast<int>(wc.upper_h);
  m.element_strides[0] = static_cast<unsigned>(p.stride_w);
  m.element_strides[1] = static_cast<unsigned>(p.stride_h);
  m.channels = static_cast<unsigned>(igemm::block_k(p, c.tile.k_chunks));
  m.pixels = static_cast<unsigned>(c.transposed ? c.tile.bn : c.tile.bm);
  return m;
}

struct TensorMapShapes {
  TensorMapShape a, b, y;
};

// A: pixels x channels of x (a 1x1, stride-1 convolution on channels-last x), or its windows
// (im2col); B: output channels x GEMM K of the weights as the GEMM reads them. k-tiles of BK
// values by a tile's pixels / channels (BM / BN, or BN / BM transposed). y (Config::tma_store):
// pixels x channels, boxes of 64 channels by a tile's pixels.
TensorMapShapes tensor_map_shapes(const igemm::Problem& p, const igemm::Config& c) {
  const unsigned bk = static_cast<unsigned>(igemm::block_k(p, c.tile.k_chunks));
  const unsigned tile_pixels = static_cast<unsigned>(c.transposed ? c.tile.bn : c.tile.bm);
  const unsigned tile_channels = static_cast<unsigned>(c.transposed ? c.tile.bm : c.tile.bn);
  const std::uint64_t elem = p.elem_bytes();
  TensorMapShape a, b, y;
  if (c.tma_a_im2col) {
    a.used = true;
    a.im2col = true;
    a.windows = input_windows(p, c);
  } else if (c.tma_a) {
    // Multicast (Config::cluster_blocks): each block of a cluster copies its share of the rows.
    a = {true, static_cast<std::uint64_t>(p.c), static_cast<std::uint64_t>(p.n) * p.h * p.w,
         static_cast<std::uint64_t>(igemm::input_row_stride(p, c)) * elem, bk,
         tile_pixels / static_cast<unsigned>(c.cluster_blocks)};
  }
  if (c.tma_b) {
    b = {true, static_cast<std::uint64_t>(p.gemm_k()), static_cast<std::uint64_t>(p.k),
         static_cast<std::uint64_t>(igemm::weights_row_stride(p, c)) * elem, bk, tile_channels};
  }
  if (c.tma_store) {
    y = {true, static_cast<std::uint64_t>(p.k), static_cast<std::uint64_t>(p.gemm_m()),
         static_cast<std::uint64_t>(igemm::output_row_stride(p)) * elem, hf::kStoreBoxChannels, tile_pixels};
  }
  return {a, b, y};
}

class ConvImplicitGemmInvoker final : public Invoker {
 public:
  struct Packing {
    // Null when not used; the weights' too when the input's re-layout moves them
    // (Config::pack_weight_slices, `weights` then its destination).
    std::shared_ptr<const rt::Kernel> weights_kernel, input_kernel;
    std::unique_ptr<DeviceScratch> weights, input;
    unsigned weights_grid = 0;
    dim3 input_grid;
    // The convolution starts early after a re-layout launch (rt::launch_kernel) where its grid
    // is one even wave (Config::one_even_wave): its blocks take the multiprocessors as the
    // re-layout's blocks drain, then wait for its writes.
    bool early_start = false;
    // Stream-K: partial accumulators (two slots of BM x BN floats per block) and one counter
    // per output tile, zero between launches (the kernel re-zeroes what it used).
    std::unique_ptr<DeviceScratch> stream_k_partials, stream_k_counters;
    // The re-layout streamed beside the GEMM (Config::stream_input): its ready counters, zero
    // between launches (kernels/common/ready_counters.h: the GEMM re-zeroes them).
    std::unique_ptr<DeviceScratch> ready_counters;
  };

  ConvImplicitGemmInvoker(std::shared_ptr<const rt::Kernel> kernel, Packing packing, const igemm::Config& config,
                          TensorMapShapes maps, std::size_t elem, int conv_index,
                          ChainBinding binding)
      : kernel_(std::move(kernel)),
        packing_(std::move(packing)),
        maps_(maps),
        grid_(static_cast<unsigned>(config.grid_x), static_cast<unsigned>(config.grid_y)),
        block_(static_cast<unsigned>(config.threads)),
        shared_(static_cast<unsigned>(config.shared_bytes)),
        x_align_(config.a_loader == igemm::Loader::async16 && !config.pack_input ? 16
                 : config.a_loader == igemm::Loader::pixels                      ? config.a_pixel_lanes * elem
                                                                                 : elem),
        w_align_(config.b_loader == igemm::Loader::async16 && !config.pack_weights ? 16 : elem),
        y_align_(static_cast<std::size_t>(config.out_vec) * elem),
        conv_index_(conv_index),
        binding_(std::move(binding)) {}

  hipError_t launch(hipStream_t stream, const void* input, void* output, const OperatorArgs& args) const override {
    if (conv_index_ >= static_cast<int>(args.slots.size())) return hipErrorInvalidValue;
    const auto* conv = std::get_if<ConvForwardArgs>(&args.slots[static_cast<std::size_t>(conv_index_)]);
    if (conv == nullptr) return hipErrorInvalidValue;
    // The kernel was specialised for vector accesses: the pointers must allow them
    // (hipMalloc's always do; an offset into a buffer may not).
    if (!aligned(input, x_align_) || !aligned(conv->weights, w_align_) || !aligned(output, y_align_)) {
      return hipErrorInvalidValue;
    }
    hf::ConvArgs a{};
    a.x = input;
    a.w = conv->weights;
    a.y = output;
    a.alpha = static_cast<float>(conv->alpha);
    if (packing_.stream_k_partials) {
      a.partials = packing_.stream_k_partials->data();
      a.tile_counters = packing_.stream_k_counters->counters();
    }
    if (!binding_.pack(args, a.chain)) return hipErrorInvalidValue;
    if (packing_.weights_kernel) {
      hf::IgemmPackArgs p{};
      p.src = conv->weights;
      p.dst = packing_.weights->data();
      const hipError_t e = packing_.weights_kernel->launch(dim3(packing_.weights_grid), dim3(256), 0, stream, &p);
      if (e != hipSuccess) return e;
      a.w = packing_.weights->data();
    }
    if (packing_.input_kernel) {
      hf::IgemmPackArgs p{};
      p.src = input;
      p.dst = packing_.input->data();
      p.chain = a.chain;
      if (packing_.weights && !packing_.weights_kernel) {  // the weights ride along (Config::pack_weight_slices)
        p.weights_src = conv->weights;
        p.weights_dst = packing_.weights->data();
        a.w = packing_.weights->data();
      }
      if (packing_.ready_counters) p.ready = a.input_ready = packing_.ready_counters->counters();
      a.x = packing_.input->data();
      // Encoded before the re-layout's launch: a streamed re-layout must not run without its GEMM.
      if (!encode_maps(a)) return hipErrorInvalidValue;
      const hipError_t e = packing_.input_kernel->launch(packing_.input_grid, dim3(hf::kPackThreads), 0, stream, &p);
      if (e != hipSuccess) return e;
    } else if (!encode_maps(a)) {
      return hipErrorInvalidValue;
    }
    const hipError_t e = kernel_->launch(grid_, block_, shared_, stream, &a, packing_.early_start);
    // A streamed re-layout without its GEMM leaves its counts behind: zero them for the next launch.
    if (e != hipSuccess && packing_.ready_counters) {
      (void)hipMemsetAsync(packing_.ready_counters->counters(), 0, packing_.ready_counters->bytes(), stream);
    }
    return e;
  }
  int kernel_launches() const override {
    return 1 + (packing_.weights_kernel ? 1 : 0) + (packing_.input_kernel ? 1 : 0);
  }

 private:
  static bool aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }
  bool encode_maps(hf::ConvArgs& a) const {
    return (!maps_.a.used || maps_.a.encode(a.a_map, a.x)) && (!maps_.b.used || maps_.b.encode(a.b_map, a.w)) &&
           (!maps_.y.used || maps_.y.encode(a.y_map, a.y));
  }

  std::shared_ptr<const rt::Kernel> kernel_;
  Packing packing_;  // scratch shared by executions (one stream): re-laid-out operands, stream-K partials
  TensorMapShapes maps_;
  dim3 grid_, block_;
  unsigned shared_;
  std::size_t x_align_, w_align_, y_align_;
  int conv_index_;
  ChainBinding binding_;
};

}  // namespace

std::optional<igemm::Problem> ConvImplicitGemmSolver::problem_of(const FusionPlan& plan, std::string* why) {
  const PlanParts parts = split_at_convolution(plan);
  if (parts.conv == nullptr) {
    *why = "the plan has no convolution";
    return std::nullopt;
  }
  if (auto reason = unsupported_data_type(plan)) {
    *why = *reason;
    return std::nullopt;
  }
  const ConvForwardOp& conv = conv_of(parts);
  if (conv.conv.mode != ConvMode::convolution) {
    *why = "transposed convolution is not an implicit GEMM here";
    return std::nullopt;
  }
  if (conv.conv.spatial_dims() != 2 || parts.conv->input.dims() != 4) {
    *why = "the implicit GEMM is 2-D; this convolution has " + std::to_string(conv.conv.spatial_dims()) +
           " spatial dimensions";
    return std::nullopt;
  }
  std::vector<const FusionOp*> chain = parts.prologue;
  chain.insert(chain.end(), parts.epilogue.begin(), parts.epilogue.end());
  if (auto reason = unfusable_chain(chain)) {
    *why = *reason;
    return std::nullopt;
  }
  const TensorDesc& x = parts.conv->input;
  const TensorDesc& y = parts.conv->output;
  const TensorDesc& w = conv.weights;
  if (x.type != w.type || x.type != y.type) {
    *why = "input, weights and output types differ";
    return std::nullopt;
  }
  // igemm::Problem holds sizes as int; a plan's lengths are 64-bit (an output can outgrow
  // its input through pads or strides).
  for (const TensorDesc* t : {&x, &w, &y}) {
    for (const std::int64_t length : t->lengths) {
      if (length > std::numeric_limits<int>::max()) {
        *why = "a length of " + t->to_string() + " exceeds 2^31-1, the implicit GEMM's 32-bit sizes";
        return std::nullopt;
      }
    }
  }
  igemm::Problem p;
  p.elem = elem_of(x.type);
  p.allow_tf32 = conv.conv.allow_tf32;
  p.n = static_cast<int>(x.lengths[0]);
  p.c = static_cast<int>(x.lengths[1]);
  p.h = static_cast<int>(x.lengths[2]);
  p.w = static_cast<int>(x.lengths[3]);
  p.k = static_cast<int>(w.lengths[0]);
  p.r = static_cast<int>(w.lengths[2]);
  p.s = static_cast<int>(w.lengths[3]);
  p.p = static_cast<int>(y.lengths[2]);
  p.q = static_cast<int>(y.lengths[3]);
  p.pad_h = conv.conv.pads[0];
  p.pad_w = conv.conv.pads[1];
  p.stride_h = conv.conv.strides[0];
  p.stride_w = conv.conv.strides[1];
  p.dil_h = conv.conv.dilations[0];
  p.dil_w = conv.conv.dilations[1];
  p.groups = conv.conv.groups;
  p.x_strides = strides4(x);
  p.w_strides = strides4(w);
  p.y_strides = strides4(y);
  p.has_prologue = !parts.prologue.empty();
  return p;
}

igemm::Config ConvImplicitGemmSolver::config_for(const FusionPlan& plan, const Target& target,
                                                 const std::string& force_tile) {
  std::string why;
  auto p = problem_of(plan, &why);
  if (!p) fail(Status::unsupported_op, why);
  const PlanParts parts = split_at_convolution(plan);
  const bool warpgroup = igemm::has_warpgroup_mma(target.arch);
  // HIPFUSE_IGEMM_TILE (development): every plan's tile and modes, as the tile sweep names them.
  const auto forced = force_tile.empty() ? env::get("HIPFUSE_IGEMM_TILE") : std::nullopt;
  igemm::Config c = igemm::choose_config(*p, multiprocessors_of(target), forced.value_or(force_tile), warpgroup);
  const std::size_t limit = shared_per_block_of(target);
  if (static_cast<std::size_t>(c.shared_bytes) > limit) {
    // A device with less shared memory than the tile wants: the smallest tile always fits.
    c = igemm::choose_config(*p, multiprocessors_of(target), c.kernel == igemm::Kernel::matrix ? "64x64" : "simt64x64",
                             warpgroup);
  }
  const std::string forced_name = forced ? igemm::forced_tile_name(*forced) : "";
  if (!forced_name.empty() && forced_name != c.tile.name()) {
    log::print(log::Level::warning, "HIPFUSE_IGEMM_TILE={} does not apply to plan [{}]: implicit GEMM {}", *forced,
               plan.key(), c.describe());
  }
  c.index64 = offset_type_of(parts, c) != "int";
  log::print(log::Level::info, "plan [{}] for {}: implicit GEMM {}", plan.key(), target.arch, c.describe());
  return c;
}

igemm::Problem ConvImplicitGemmSolver::gemm_problem_of(const FusionPlan& plan, const igemm::Config& config) {
  std::string why;
  auto p = problem_of(plan, &why);
  if (!p) fail(Status::unsupported_op, why);
  return config.fold.active() ? igemm::folded(*p, config.fold) : *p;
}

rt::KernelRequest ConvImplicitGemmSolver::request_for(const FusionPlan& plan, const igemm::Config& config) {
  const igemm::Problem p = gemm_problem_of(plan, config);
  const PlanParts parts = split_at_convolution(plan);
  rt::KernelRequest r{config.source(),
                      config.entry(),
                      {plan_header(plan, parts, config), {"hf_igemm.h", igemm::generate_header(p, config)}},
                      {}};
  r.arch_specific = config.tile.warpgroup;
  return r;
}

rt::KernelRequest ConvImplicitGemmSolver::pack_request_for(const FusionPlan& plan, const igemm::Config& config,
                                                          bool input) {
  rt::KernelRequest r = request_for(plan, config);
  r.source = "conv_igemm_pack.hip";
  r.entry = input ? "hf_igemm_pack_input" : "hf_igemm_pack_weights";
  r.arch_specific = false;  // plain copies
  return r;
}

Applicability ConvImplicitGemmSolver::applies(const FusionPlan& plan, const Target& target) const {
  std::string why;
  auto p = problem_of(plan, &why);
  if (!p) return Applicability::no(why);
  why = igemm::why_not(*p, target.arch);
  if (!why.empty()) return Applicability::no(why);
  return Applicability::yes();
}

std::vector<rt::KernelRequest> ConvImplicitGemmSolver::kernels(const FusionPlan& plan, const Target& target) const {
  const igemm::Config config = config_for(plan, target);
  std::vector<rt::KernelRequest> requests{request_for(plan, config)};
  if (config.pack_weights && config.pack_weight_slices == 0) requests.push_back(pack_request_for(plan, config, false));
  if (config.pack_input) requests.push_back(pack_request_for(plan, config, true));
  return requests;
}

std::unique_ptr<Invoker> ConvImplicitGemmSolver::build(const FusionPlan& plan, const Target& target,
                                                       std::vector<rt::CompileReport>& reports) const {
  return build_with(plan, target, config_for(plan, target), reports);
}

namespace {

// A multiprocessor's registers are four sub-partitions' of 16384, each holding the registers of
// the warps it runs (a block's warps dealt round the four; a warp's registers allocated in steps
// of 8 a thread): the most a sub-partition holds of `blocks` blocks of `threads` threads.
int partition_registers(const rt::Kernel& kernel, int threads, std::int64_t blocks) {
  const int per_thread = (rt::registers_per_thread(kernel.function()) + 7) / 8 * 8;
  const std::int64_t warps = blocks * ((threads + 31) / 32);
  return static_cast<int>((warps + 3) / 4) * 32 * per_thread;
}

// The streamed re-layout's persistent grid (Config::stream_input): as many of its blocks a
// multiprocessor as the registers left beside the GEMM's resident blocks hold, at least one
// (a block that does not fit waits for the GEMM's) and at most two. (H200, 3x3 128->128 s2:
// two blocks of 8 warps at 64 registers beside 9 GEMM warps at 104 fit the 65536 registers but
// not a sub-partition's 16384, and the GEMM waited for the re-layout.)
unsigned streamed_relayout_blocks(const igemm::Config& config, const rt::Kernel& gemm, const rt::Kernel& relayout,
                                  const Target& target) {
  constexpr int kPartitionRegisters = 16384;
  const std::int64_t sms = multiprocessors_of(target);
  const std::int64_t gemm_resident = ceil_div(config.grid_x * config.grid_y, sms);
  const int left = kPartitionRegisters - partition_registers(gemm, config.threads, gemm_resident);
  std::int64_t fit = 1;
  while (fit < 2 && partition_registers(relayout, hf::kPackThreads, fit + 1) <= left) ++fit;
  return static_cast<unsigned>(sms * fit);
}

}  // namespace

std::unique_ptr<Invoker> ConvImplicitGemmSolver::build_with(const FusionPlan& plan, const Target& target,
                                                            const igemm::Config& config,
                                                            std::vector<rt::CompileReport>& reports) {
  const PlanParts parts = split_at_convolution(plan);
  auto kernel = load_kernel(request_for(plan, config), target, reports);
  allow_dynamic_shared(*kernel, static_cast<std::size_t>(config.shared_bytes));
  ConvImplicitGemmInvoker::Packing packing;
  const TensorDesc w = gemm_weights(conv_of(parts), config);
  const TensorDesc x = gemm_input(parts.conv->input, parts.conv->output, config);
  if (config.pack_weights) {
    packing.weights =
        std::make_unique<DeviceScratch>(target.device, static_cast<std::size_t>(w.element_count()) * size_of(w.type));
    if (config.pack_weight_slices == 0) {  // else the input's re-layout moves them
      packing.weights_kernel = load_kernel(pack_request_for(plan, config, false), target, reports);
      packing.weights_grid = static_cast<unsigned>(ceil_div(w.element_count(), 256));
    }
  }
  if (config.pack_input) {
    packing.input_kernel = load_kernel(pack_request_for(plan, config, true), target, reports);
    packing.input =
        std::make_unique<DeviceScratch>(target.device, static_cast<std::size_t>(x.element_count()) * size_of(x.type));
    std::string why;
    const auto given = problem_of(plan, &why);
    if (!given) fail(Status::unsupported_op, why);
    const auto grid = igemm::relayout_grid(*given, config);
    packing.input_grid = dim3(static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]));
    if (config.stream_input) packing.input_grid = dim3(streamed_relayout_blocks(config, *kernel, *packing.input_kernel, target));
  }
  packing.early_start = (packing.weights_kernel || packing.input_kernel) && config.one_even_wave &&
                        rt::supports_early_start(target.arch);
  if (config.stream_input) {
    // The re-layout takes the multiprocessors first: left to their own needs, the two kernels
    // would split a multiprocessor's L1 and shared memory differently (the re-layout uses no
    // shared memory), and the GEMM's blocks could not join the re-layout's until it drained.
    rt::prefer_shared_memory(packing.input_kernel->function());
    rt::prefer_shared_memory(kernel->function());
    packing.ready_counters = zeroed_counters(
        target.device, static_cast<std::size_t>(x.lengths[0] + hf::kReadyCounterSlots) * sizeof(unsigned int),
        "ready counters");
  }
  if (config.stream_k_blocks > 0) {
    const std::size_t slots = 2 * static_cast<std::size_t>(config.stream_k_blocks);
    packing.stream_k_partials = std::make_unique<DeviceScratch>(
        target.device, slots * static_cast<std::size_t>(config.tile.bm * config.tile.bn) * sizeof(float));
    packing.stream_k_counters =
        zeroed_counters(target.device, static_cast<std::size_t>(config.tiles) * sizeof(unsigned int), "stream-K counters");
  }
  ChainBinding binding;
  binding.bind(parts.prologue, 0);
  binding.bind(parts.epilogue, static_cast<int>(parts.prologue.size()));
  return std::make_unique<ConvImplicitGemmInvoker>(std::move(kernel), std::move(packing), config,
                                                   tensor_map_shapes(gemm_problem_of(plan, config), config), size_of(x.type),
                                                   parts.conv->index, std::move(binding));
}

}  // namespace hipfuse
