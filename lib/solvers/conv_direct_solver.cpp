#include "solvers/conv_direct_solver.h"

#include "common/error.h"
#include "common/kernel_args.h"
#include "solvers/chain_binding.h"
#include "solvers/chain_codegen.h"
#include "solvers/invoker_support.h"
#include "solvers/plan_parts.h"

#include <algorithm>
#include <array>
#include <optional>

namespace hipfuse {

namespace {

constexpr int kBlockPixels = 128;
constexpr int kMaxTileK = 16;
constexpr std::int64_t kWeightBudgetBytes = 12 * 1024;  // leaves room for many resident blocks
constexpr std::int64_t kStaticSharedLimit = 48 * 1024;
constexpr std::int64_t kMaxGridY = 65535;
constexpr std::int64_t kMaxGridX = 2147483647;

// The convolution's geometry with the spatial dimensions right-aligned to D, H, W.
struct ConvShape {
  const TensorDesc& x;
  const TensorDesc& w;
  const TensorDesc& y;
  std::int64_t groups;
  std::array<std::int64_t, 3> pad{0, 0, 0}, stride{1, 1, 1}, dilation{1, 1, 1};

  ConvShape(const FusionOp& conv_op, const ConvForwardOp& conv)
      : x(conv_op.input), w(conv.weights), y(conv_op.output), groups(conv.conv.groups) {
    const int sd = conv.conv.spatial_dims();
    for (int d = 0; d < sd; ++d) {
      const auto to = static_cast<std::size_t>(3 - sd + d);
      pad[to] = conv.conv.pads[static_cast<std::size_t>(d)];
      stride[to] = conv.conv.strides[static_cast<std::size_t>(d)];
      dilation[to] = conv.conv.dilations[static_cast<std::size_t>(d)];
    }
  }
  std::int64_t k_per_group() const { return y.lengths[1] / groups; }
  std::int64_t c_per_group() const { return x.lengths[1] / groups; }
  std::int64_t taps() const {
    std::int64_t t = 1;
    for (int d = 2; d < w.dims(); ++d) t *= w.lengths[static_cast<std::size_t>(d)];
    return t;
  }
  std::int64_t pixels() const { return y.element_count() / y.lengths[1]; }
};

struct ConvConfig {
  int tile_k = 1;
  int channel_chunk = 1;
  std::int64_t k_tiles = 1;
  dim3 grid;
};

// The smallest power of two >= v, capped at kMaxTileK: an uncapped int would overflow
// (and the loop never end) for more than 2^30 output channels per group.
int tile_k_for(std::int64_t v) {
  int p = 1;
  while (p < v && p < kMaxTileK) p *= 2;
  return p;
}

// Tiles that fit the weights in shared memory, or the reason there are none.
std::optional<ConvConfig> choose_config(const ConvShape& s, std::string* why) {
  ConvConfig c;
  c.tile_k = tile_k_for(s.k_per_group());
  const std::int64_t tap_bytes = s.taps() * 4;
  while (c.tile_k > 1 && c.tile_k * tap_bytes > kStaticSharedLimit) c.tile_k /= 2;
  if (c.tile_k * tap_bytes > kStaticSharedLimit) {
    *why = "the filter has " + std::to_string(s.taps()) + " taps; the direct kernel stages at most " +
           std::to_string(kStaticSharedLimit / 4) + " per channel in shared memory";
    return std::nullopt;
  }
  c.channel_chunk = static_cast<int>(
      std::clamp<std::int64_t>(kWeightBudgetBytes / (c.tile_k * tap_bytes), 1, s.c_per_group()));
  c.k_tiles = ceil_div(s.k_per_group(), c.tile_k);
  const std::int64_t grid_y = s.groups * c.k_tiles;
  if (grid_y > kMaxGridY) {
    *why = std::to_string(grid_y) + " output-channel tiles exceed the grid's " + std::to_string(kMaxGridY);
    return std::nullopt;
  }
  const std::int64_t grid_x = ceil_div(s.pixels(), kBlockPixels);
  if (grid_x > kMaxGridX) {
    *why = std::to_string(s.pixels()) + " output pixels exceed the direct kernel's grid";
    return std::nullopt;
  }
  c.grid = dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
  return c;
}

// The op kinds that can never share a kernel with a convolution, with the reason.
std::optional<std::string> unfusable_with_conv(const FusionOp& op) {
  if (is_a<BatchNormForwardTrainingOp>(op)) {
    return name_op(op) + ": BN forward training cannot fuse with a convolution (its batch statistics need the "
                         "whole tensor first)";
  }
  if (is_a<BatchNormBackwardOp>(op) || is_a<ActivationBackwardOp>(op)) {
    return name_op(op) + ": backward ops cannot fuse with a forward convolution";
  }
  if (is_a<ConvForwardOp>(op)) return name_op(op) + ": only one convolution fuses into a kernel";
  return std::nullopt;
}

std::optional<std::string> plan_problem(const FusionPlan& plan, const PlanParts& parts) {
  if (parts.conv == nullptr) return std::string("the plan has no convolution");
  if (auto why = unsupported_data_type(plan)) return why;
  const auto& conv = std::get<ConvForwardOp>(parts.conv->op);
  if (conv.conv.mode != ConvMode::convolution) return std::string("transposed convolution is not supported");
  for (const auto& op : plan.ops()) {
    if (op.get() == parts.conv) continue;
    if (auto why = unfusable_with_conv(*op)) return why;
  }
  std::vector<const FusionOp*> chain = parts.prologue;
  chain.insert(chain.end(), parts.epilogue.begin(), parts.epilogue.end());
  if (auto why = unfusable_chain(chain)) return why;
  std::string why;
  if (!choose_config(ConvShape(*parts.conv, conv), &why)) return why;
  return std::nullopt;
}

void emit_geometry(PlanHeader& h, const ConvShape& s, const ConvConfig& c) {
  h.alias("data_t", cpp_type(s.x.type));
  h.alias("offset_t", offset_type(s.x));
  h.alias("XGeom", geometry_type(s.x));
  h.alias("YGeom", geometry_type(s.y));
  h.alias("WGeom", geometry_type(s.w));
  h.int_constant("kGroups", s.groups);
  static const char* const dims[] = {"D", "H", "W"};
  for (std::size_t d = 0; d < 3; ++d) {
    h.index_constant(std::string("kStride") + dims[d], s.stride[d]);
    h.index_constant(std::string("kPad") + dims[d], s.pad[d]);
    h.index_constant(std::string("kDilation") + dims[d], s.dilation[d]);
  }
  h.int_constant("kTileK", c.tile_k);
  h.int_constant("kChannelChunk", c.channel_chunk);
  h.int_constant("kBlockPixels", kBlockPixels);
}

rt::KernelRequest request_for(const FusionPlan& plan, const PlanParts& parts, const ConvConfig& c) {
  const ConvShape shape(*parts.conv, std::get<ConvForwardOp>(parts.conv->op));
  PlanHeader h(plan);
  h.include("common/pointwise_chain.h");
  emit_geometry(h, shape, c);
  emit_chain(h, "Prologue", parts.prologue, 0, "XGeom");
  emit_chain(h, "Epilogue", parts.epilogue, static_cast<int>(parts.prologue.size()), "YGeom");
  return {"conv_direct.hip", "hf_conv_direct", {h.file()}, {}};
}

ConvConfig config_for(const PlanParts& parts) {
  std::string why;
  auto c = choose_config(ConvShape(*parts.conv, std::get<ConvForwardOp>(parts.conv->op)), &why);
  if (!c) fail(Status::unsupported_op, why);
  return *c;
}

class ConvDirectInvoker final : public Invoker {
 public:
  ConvDirectInvoker(std::shared_ptr<const rt::Kernel> kernel, dim3 grid, int conv_index, ChainBinding binding)
      : kernel_(std::move(kernel)), grid_(grid), conv_index_(conv_index), binding_(std::move(binding)) {}

  hipError_t launch(hipStream_t stream, const void* input, void* output, const OperatorArgs& args) const override {
    if (conv_index_ >= static_cast<int>(args.slots.size())) return hipErrorInvalidValue;
    const auto* conv = std::get_if<ConvForwardArgs>(&args.slots[static_cast<std::size_t>(conv_index_)]);
    if (conv == nullptr) return hipErrorInvalidValue;
    hf::ConvArgs a{};
    a.x = input;
    a.w = conv->weights;
    a.y = output;
    a.alpha = static_cast<float>(conv->alpha);
    if (!binding_.pack(args, a.chain)) return hipErrorInvalidValue;
    return kernel_->launch(grid_, dim3(kBlockPixels), 0, stream, &a);
  }
  int kernel_launches() const override { return 1; }

 private:
  std::shared_ptr<const rt::Kernel> kernel_;
  dim3 grid_;
  int conv_index_;
  ChainBinding binding_;
};

}  // namespace

Applicability ConvDirectSolver::applies(const FusionPlan& plan, const Target&) const {
  if (auto why = plan_problem(plan, split_at_convolution(plan))) return Applicability::no(*why);
  return Applicability::yes();
}

std::vector<rt::KernelRequest> ConvDirectSolver::kernels(const FusionPlan& plan, const Target&) const {
  const PlanParts parts = split_at_convolution(plan);
  return {request_for(plan, parts, config_for(parts))};
}

std::unique_ptr<Invoker> ConvDirectSolver::build(const FusionPlan& plan, const Target& target,
                                                 std::vector<rt::CompileReport>& reports) const {
  const PlanParts parts = split_at_convolution(plan);
  const ConvConfig config = config_for(parts);
  ChainBinding binding;
  binding.bind(parts.prologue, 0);
  binding.bind(parts.epilogue, static_cast<int>(parts.prologue.size()));
  return std::make_unique<ConvDirectInvoker>(load_kernel(request_for(plan, parts, config), target, reports),
                                             config.grid, parts.conv->index, std::move(binding));
}

}  // namespace hipfuse
