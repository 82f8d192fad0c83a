// The implicit-GEMM convolution without a GPU: applicability (with reasons), the tile
// heuristic on the reference layers, and hipRTC compilation for sm_90 of every tile
// configuration x data type x layout with a few chains.
#include <doctest/doctest.h>

#include "common/igemm_args.h"
#include "plan/fusion_plan.h"
#include "runtime/disk_cache.h"
#include "runtime/kernel_compiler.h"
#include "solvers/conv_implicit_gemm.h"
#include "unit/test_reliability_support.h"  // TempDir, CacheAt

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace hipfuse;

namespace {

struct ConvCase {
  DataType type = DataType::half;
  Layout layout = Layout::nhwc;
  int n = 2, c = 64, h = 14, w = 14, k = 64, r = 3, s = 3;
  int pad = 1, stride = 1, dil = 1, groups = 1;
  bool tf32 = false;
};

// A ResNet-50 reference layer at batch 64: c -> k channels, hw x hw, an r x r filter, "same" padding.
ConvCase reference_layer(DataType type, Layout layout, int c, int hw, int k, int r) {
  ConvCase cc;
  cc.type = type;
  cc.layout = layout;
  cc.n = 64;
  cc.c = c;
  cc.h = cc.w = hw;
  cc.k = k;
  cc.r = cc.s = r;
  cc.pad = r / 2;
  return cc;
}

// The same case with a 1x1, unpadded filter.
ConvCase as_1x1(ConvCase cc) {
  cc.r = cc.s = 1;
  cc.pad = 0;
  return cc;
}

enum class Chain { none, bias_relu, bias_bn_relu, bn_elu_residual, prologue_bn_relu };

std::unique_ptr<FusionPlan> make_plan(const ConvCase& cc, Chain chain = Chain::bias_relu) {
  auto plan = std::make_unique<FusionPlan>(FusionDirection::vertical,
                                           TensorDesc::packed(cc.type, {cc.n, cc.c, cc.h, cc.w}, cc.layout));
  if (chain == Chain::prologue_bn_relu) {
    plan->add(BatchNormInferenceOp{BatchNormMode::spatial,
                                   TensorDesc::packed(DataType::float32, {1, cc.c, 1, 1}, Layout::nchw)});
    plan->add(ActivationForwardOp{ActivationMode::relu});
  }
  ConvDesc conv;
  conv.pads = {cc.pad, cc.pad};
  conv.strides = {cc.stride, cc.stride};
  conv.dilations = {cc.dil, cc.dil};
  conv.groups = cc.groups;
  conv.allow_tf32 = cc.tf32;
  plan->add(ConvForwardOp{conv, TensorDesc::packed(cc.type, {cc.k, cc.c / cc.groups, cc.r, cc.s}, cc.layout)});
  const TensorDesc y = plan->output();
  switch (chain) {
    case Chain::none:
    case Chain::prologue_bn_relu:
      break;
    case Chain::bias_relu:
    case Chain::bias_bn_relu:
      plan->add(BiasForwardOp{TensorDesc::packed(cc.type, {1, cc.k, 1, 1}, Layout::nchw)});
      if (chain == Chain::bias_bn_relu) {
        plan->add(BatchNormInferenceOp{BatchNormMode::spatial,
                                       TensorDesc::packed(DataType::float32, {1, cc.k, 1, 1}, Layout::nchw)});
      }
      plan->add(ActivationForwardOp{ActivationMode::relu});
      break;
    case Chain::bn_elu_residual:
      plan->add(BatchNormInferenceOp{BatchNormMode::per_activation,
                                     TensorDesc::packed(DataType::float32, {1, cc.k, y.lengths[2], y.lengths[3]},
                                                        Layout::nchw)});
      plan->add(ActivationForwardOp{ActivationMode::elu});
      plan->add(ResidualAddOp{y});
      break;
  }
  return plan;
}

Target sm90() {
  Target t;
  t.arch = "sm_90";
  t.warp_size = 32;
  t.multiprocessors = 132;
  return t;
}

// sm_90's multiprocessors without wgmma, so that only the instruction set differs.
Target sm80() {
  Target t = sm90();
  t.arch = "sm_80";
  return t;
}

const ConvImplicitGemmSolver solver;

// Whether one of the request's generated headers holds `line`.
bool declares(const rt::KernelRequest& r, const std::string& line) {
  bool found = false;
  for (const auto& h : r.generated_headers) found |= h.text.find(line) != std::string::npos;
  return found;
}

// The registers a thread of the tile gets with its resident blocks on one multiprocessor
// (65536 a multiprocessor, allocated in steps of 8).
int registers_a_thread(const igemm::Config& c) { return 65536 / (c.threads * c.tile.min_blocks) / 8 * 8; }

}  // namespace

TEST_CASE("igemm: applies to 2-D fp16/bf16/fp32 convolutions with pointwise chains, with reasons otherwise") {
  for (DataType t : {DataType::half, DataType::bfloat16, DataType::float32}) {
    for (Layout l : {Layout::nchw, Layout::nhwc}) {
      ConvCase cc;
      cc.type = t;
      cc.layout = l;
      CHECK(solver.applies(*make_plan(cc), sm90()).applies);
      CHECK(solver.applies(*make_plan(cc, Chain::prologue_bn_relu), sm90()).applies);
      CHECK(solver.applies(*make_plan(cc, Chain::bn_elu_residual), sm90()).applies);
    }
  }
  ConvCase odd;  // odd channel counts take the gathered loaders
  odd.c = 3;
  odd.k = 17;
  odd.r = odd.s = 7;
  odd.stride = 2;
  odd.pad = 3;
  CHECK(solver.applies(*make_plan(odd), sm90()).applies);

  SUBCASE("grouped convolutions apply when each group is a GEMM of some width") {
    ConvCase g;
    g.groups = 4;
    CHECK(solver.applies(*make_plan(g), sm90()).applies);
    g.groups = 64;  // depthwise
    auto a = solver.applies(*make_plan(g), sm90());
    CHECK_FALSE(a.applies);
    CHECK(a.reason.find("per group") != std::string::npos);
  }
  SUBCASE("3-D convolutions are left to the direct kernel") {
    auto plan = std::make_unique<FusionPlan>(FusionDirection::vertical,
                                             TensorDesc::packed(DataType::half, {1, 8, 4, 4, 4}, Layout::ncdhw));
    ConvDesc conv;
    conv.pads = {0, 0, 0};
    conv.strides = {1, 1, 1};
    conv.dilations = {1, 1, 1};
    plan->add(ConvForwardOp{conv, TensorDesc::packed(DataType::half, {8, 8, 1, 1, 1}, Layout::ncdhw)});
    auto a = solver.applies(*plan, sm90());
    CHECK_FALSE(a.applies);
    CHECK(a.reason.find("2-D") != std::string::npos);
  }
  SUBCASE("transposed convolutions are not an implicit GEMM here") {
    auto plan = std::make_unique<FusionPlan>(FusionDirection::vertical,
                                             TensorDesc::packed(DataType::half, {1, 8, 4, 4}, Layout::nchw));
    ConvDesc conv;
    conv.mode = ConvMode::transpose;
    plan->add(ConvForwardOp{conv, TensorDesc::packed(DataType::half, {8, 8, 1, 1}, Layout::nchw)});
    auto a = solver.applies(*plan, sm90());
    CHECK_FALSE(a.applies);
    CHECK(a.reason.find("transposed") != std::string::npos);
  }
  SUBCASE("sizes past 32 bits: refused with the reason, or planned without overflow") {
    // Pads grow the output past the int sizes of igemm::Problem: 64 + 2 * (2^31 - 1) wide.
    auto wide = std::make_unique<FusionPlan>(FusionDirection::vertical,
                                             TensorDesc::packed(DataType::half, {1, 8, 4, 64}, Layout::nchw));
    ConvDesc pad;
    pad.pads = {0, std::numeric_limits<int>::max()};
    pad.strides = {1, 2};
    pad.dilations = {1, 2};
    wide->add(ConvForwardOp{pad, TensorDesc::packed(DataType::half, {8, 8, 1, 3}, Layout::nchw)});
    REQUIRE(wide->output().lengths[3] > std::numeric_limits<int>::max());
    auto a = solver.applies(*wide, sm90());
    CHECK_FALSE(a.applies);
    CHECK(a.reason.find("2^31-1") != std::string::npos);

    // A 2-channel input under a filter 65536 wide: the width fold's re-laid x would be
    // 2^30 * 2^20 * 1 * 2^17 values, past 2^63 bytes. Found as a signed overflow (UBSan, the
    // sanitizer build) by the search that is now test_reliability_extreme_shapes.cpp; the fold
    // is refused and the kernels are still specified.
    auto stem = std::make_unique<FusionPlan>(FusionDirection::vertical,
                                             TensorDesc::packed(DataType::half, {1 << 30, 2, 1 << 20, 2}, Layout::nchw));
    ConvDesc wide_filter;
    wide_filter.pads = {1, 3};
    wide_filter.strides = {2, 1};
    wide_filter.dilations = {1, 2};
    stem->add(ConvForwardOp{wide_filter, TensorDesc::packed(DataType::half, {1, 2, 7, 65536}, Layout::nchw)});
    REQUIRE(solver.applies(*stem, sm90()).applies);
    std::string why;
    const auto problem = ConvImplicitGemmSolver::problem_of(*stem, &why);
    REQUIRE(problem);
    CHECK_FALSE(igemm::width_fold_for(*problem).active());
    CHECK_FALSE(solver.kernels(*stem, sm90()).empty());
  }
  SUBCASE("a plan without a convolution") {
    auto plan = std::make_unique<FusionPlan>(FusionDirection::vertical,
                                             TensorDesc::packed(DataType::half, {1, 8, 4, 4}, Layout::nchw));
    plan->add(ActivationForwardOp{ActivationMode::relu});
    CHECK_FALSE(solver.applies(*plan, sm90()).applies);
  }
  SUBCASE("matrix units: NVIDIA sm_80+ only; fp32 (SIMT) runs anywhere") {
    ConvCase cc;
    Target amd = sm90();
    amd.arch = "gfx90a";
    amd.warp_size = 64;
    auto a = solver.applies(*make_plan(cc), amd);
    CHECK_FALSE(a.applies);
    CHECK(a.reason.find("gfx90a") != std::string::npos);
    Target old = sm90();
    old.arch = "sm_75";
    CHECK_FALSE(solver.applies(*make_plan(cc), old).applies);
    cc.type = DataType::float32;
    CHECK(solver.applies(*make_plan(cc), amd).applies);
    cc.tf32 = true;  // tf32 asks for matrix units
    CHECK_FALSE(solver.applies(*make_plan(cc), amd).applies);
  }
}

TEST_CASE("igemm: the tile heuristic on the reference layers") {
  struct Layer {
    DataType type;
    int c, hw, k, r;
    const char* nhwc_tile;
    const char* nchw_tile;  // 256x64 only with vector A loads (registers)
    const char* sm80_tile;  // without wgmma (both layouts, where it differs from sm_90's)
  } layers[] = {
      // memory-bound: stores overlapping the next tile's loads (cp.async A: along C for NHWC,
      // along the pixels for NCHW); NHWC: the persistent warp-specialised wgmma tile, x and
      // weights by tensor map, 16-bit staged y; NCHW (GEMM K 64, N >= 128): the persistent
      // 2-warpgroup tile; without wgmma the most resident blocks
      {DataType::half, 64, 56, 256, 1, "wg128x64p", "wg128x128p", "128x64k64p"},
      // ... but at N = 64 NCHW keeps the mma.sync persistent tile
      {DataType::half, 64, 56, 64, 1, "wg128x64p", "128x64k64p", "128x64k64p"},
      // 3x3 (A by an im2col map on sm_90): the persistent warp-specialised wgmma tile for 64
      // output channels, transposed on NHWC (64 channels x 256 pixels, v53), mma.sync without
      // wgmma; NCHW: x re-laid out first (streamed), then as NHWC
      {DataType::half, 64, 56, 64, 3, "wg64x128p", "wg128x64p", "128x64k64"},
      {DataType::half, 256, 14, 256, 3, "wg192x128", "wg192x128", "128x64k64"},
      {DataType::float32, 64, 56, 256, 1, "simt128x64", "simt128x64", nullptr},
      // fp32, GEMM K >= 512: k-tiles of 16 where the BK 8 grid is under one wave (392 tiles of
      // 128x64 against 4 x 132 resident), BK 8 where it is not (1568 tiles)
      {DataType::float32, 256, 14, 256, 3, "simt128x64k16", "simt128x64k16", nullptr},
      {DataType::float32, 64, 56, 64, 3, "simt128x64", "simt128x64", nullptr},
  };
  for (const Layer& l : layers) {
    for (Layout layout : {Layout::nhwc, Layout::nchw}) {
      auto plan = make_plan(reference_layer(l.type, layout, l.c, l.hw, l.k, l.r));
      const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90());
      CAPTURE(c.describe());
      CHECK(std::string(c.tile.name()) == (layout == Layout::nhwc ? l.nhwc_tile : l.nchw_tile));
      if (l.sm80_tile != nullptr) {
        CHECK(std::string(ConvImplicitGemmSolver::config_for(*plan, sm80()).tile.name()) == l.sm80_tile);
      }
      if (layout == Layout::nhwc) {
        CHECK(c.a_loader == igemm::Loader::async16);
        CHECK(c.b_loader == igemm::Loader::async16);
        CHECK(c.out_along_k);
        CHECK(c.out_vec == 16 / static_cast<int>(size_of(l.type)));
      } else {
        // 1x1: A copied along the pixels (fp16/bf16; fp32's SIMT kernel gathers), each x value
        // read once, weights already (r, s, c)-contiguous; larger filters: both re-laid out
        // first, then vector loads.
        const bool pixels = l.r == 1 && size_of(l.type) == 2;
        CHECK(c.a_loader == (l.r > 1 ? igemm::Loader::async16 : pixels ? igemm::Loader::pixels : igemm::Loader::gather));
        CHECK(c.a_pixel_lanes == (pixels ? 8 : 0));  // 56 x 56 pixels: 16-byte copies
        CHECK(c.b_loader == igemm::Loader::async16);
        CHECK(c.pack_weights == (l.r > 1));
        CHECK(c.pack_input == (l.r > 1));
        CHECK_FALSE(c.out_along_k);
        CHECK(c.out_vec == (l.hw == 14 ? 4 : 16 / static_cast<int>(size_of(l.type))));
      }
      CHECK(!c.index64);
      CHECK(c.shared_bytes <= 227 * 1024);
    }
  }
  SUBCASE("NCHW 1x1: A copied along the pixels where H*W allows it, else re-laid out or gathered") {
    struct Expect {
      int hw, stride, c, k;
      DataType type;
      igemm::Loader loader;
      int lanes;
      bool pack;
    } expect[] = {
        {56, 1, 256, 128, DataType::half, igemm::Loader::pixels, 8, false},      // 3136 pixels: 16-byte copies
        {28, 1, 256, 128, DataType::bfloat16, igemm::Loader::pixels, 8, false},  // 784
        {14, 1, 256, 128, DataType::half, igemm::Loader::pixels, 4, false},      // 196: 8-byte copies
        // 49: no copy width divides it; x re-laid out (whole-plane runs) where C >= 2K
        {7, 1, 2048, 512, DataType::half, igemm::Loader::async16, 0, true},
        {7, 1, 256, 128, DataType::bfloat16, igemm::Loader::async16, 0, true},
        {7, 1, 512, 2048, DataType::half, igemm::Loader::gather, 0, false},
        {9, 1, 256, 512, DataType::half, igemm::Loader::gather, 0, false},    // 81 > 64 pixels a re-layout tile
        {14, 2, 256, 128, DataType::half, igemm::Loader::gather, 0, false},   // stride 2: pixels not a run
        {14, 1, 256, 128, DataType::float32, igemm::Loader::gather, 0, false},  // tf32: 16-bit values only
    };
    for (const Expect& e : expect) {
      ConvCase cc;
      cc.layout = Layout::nchw;
      cc.type = e.type;
      cc.tf32 = e.type == DataType::float32;
      cc.h = cc.w = e.hw;
      cc.c = e.c;
      cc.k = e.k;
      cc = as_1x1(cc);
      cc.stride = e.stride;
      const igemm::Config c = ConvImplicitGemmSolver::config_for(*make_plan(cc), sm90());
      CAPTURE(c.describe());
      CAPTURE(e.hw);
      CHECK(c.a_loader == e.loader);
      CHECK(c.a_pixel_lanes == e.lanes);
      CHECK(c.pack_input == e.pack);
      // The generated header carries the mode and the copy width to the kernel.
      for (const auto& h : ConvImplicitGemmSolver::request_for(*make_plan(cc), c).generated_headers) {
        if (h.path != "hf_igemm.h") continue;
        CHECK(h.text.find("AMode = " + std::to_string(static_cast<int>(e.loader))) != std::string::npos);
        CHECK(h.text.find("APixelLanes = " + std::to_string(e.lanes)) != std::string::npos);
      }
    }
    ConvCase pro;  // a prologue is applied in the register path: still gathered
    pro.layout = Layout::nchw;
    pro = as_1x1(pro);
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(pro, Chain::prologue_bn_relu), sm90()).a_loader ==
          igemm::Loader::gather);
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(pro), sm90()).a_loader == igemm::Loader::pixels);
  }
  SUBCASE("a prologue: x re-laid out with it applied (filters > 1x1), else the register path") {
    ConvCase cc;  // NHWC 3x3
    const igemm::Config c3 = ConvImplicitGemmSolver::config_for(*make_plan(cc, Chain::prologue_bn_relu), sm90());
    CHECK(c3.pack_input);
    CHECK(c3.a_loader == igemm::Loader::async16);
    const rt::KernelRequest r = ConvImplicitGemmSolver::request_for(*make_plan(cc, Chain::prologue_bn_relu), c3);
    for (const auto& h : r.generated_headers) {
      if (h.path != "hf_plan.h") continue;
      // The GEMM's own prologue is empty; the pack kernel's carries the ops.
      CHECK(h.text.find("using Prologue = hf::Chain<>") != std::string::npos);
      CHECK(h.text.find("using PackPrologue = hf::Chain<>") == std::string::npos);
    }
    ConvCase one = as_1x1(cc);
    const igemm::Config c1 = ConvImplicitGemmSolver::config_for(*make_plan(one, Chain::prologue_bn_relu), sm90());
    CHECK_FALSE(c1.pack_input);
    CHECK(c1.a_loader == igemm::Loader::gather);
    ConvCase odd = cc;  // C not a multiple of the vector: no re-layout, per-element gathers
    odd.c = 17;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(odd, Chain::prologue_bn_relu), sm90()).a_loader ==
          igemm::Loader::gather);
    ConvCase f32 = cc;  // SIMT applies the prologue in its vector loads: no re-layout
    f32.type = DataType::float32;
    CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(f32, Chain::prologue_bn_relu), sm90()).pack_input);
  }
  SUBCASE("the NCHW re-layout transposes register blocks where 8- or 16-byte accesses tile the planes") {
    struct Expect {
      DataType type;
      int hw, c;
      int lanes, tile_channels, tile_pixels;  // lanes 0: the shared-memory tile of 4096 values
    };
    const Expect expects[] = {
        {DataType::half, 56, 64, 8, 64, 256},      // 3136 pixels: 16-byte blocks
        {DataType::bfloat16, 14, 64, 4, 64, 128},  // 196: 8-byte accesses along the pixels
        {DataType::float32, 56, 64, 4, 32, 128},   // fp32: 4 x 4 blocks
        {DataType::float32, 7, 64, 0, 64, 64},     // 49: no access of 8 bytes tiles the plane
        {DataType::half, 7, 16, 0, 16, 256},       // 16 channels: a narrower shared tile
        {DataType::half, 3, 32, 0, 32, 128},       // 9 pixels
    };
    for (const Expect& e : expects) {
      ConvCase cc;
      cc.type = e.type;
      cc.layout = Layout::nchw;
      cc.h = cc.w = e.hw;
      cc.c = e.c;
      CAPTURE(e.hw);
      CAPTURE(name_of(e.type));
      const igemm::Config config = ConvImplicitGemmSolver::config_for(*make_plan(cc), sm90());
      REQUIRE(config.pack_input);
      CHECK(config.pack_block_lanes == e.lanes);
      CHECK(config.pack_tile_channels == e.tile_channels);
      CHECK(config.pack_tile_pixels == e.tile_pixels);
      for (const auto& h : ConvImplicitGemmSolver::pack_request_for(*make_plan(cc), config, true).generated_headers) {
        if (h.path != "hf_igemm.h") continue;
        CHECK(h.text.find("PackBlockLanes = " + std::to_string(e.lanes) + ";") != std::string::npos);
        CHECK(h.text.find("PackTilePixels = " + std::to_string(e.tile_pixels) + ";") != std::string::npos);
      }
    }
  }
  SUBCASE("the weights' re-layout rides along in x's launch: its first z slices, 8 values a thread") {
    ConvCase cc;  // NCHW 3x3 64 -> 64, 56x56, batch 2: 36864 weights, x's grid 13 x 1 x 2
    cc.layout = Layout::nchw;
    cc.h = cc.w = 56;
    auto plan = make_plan(cc);
    const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90());
    CAPTURE(c.describe());
    REQUIRE((c.pack_input && c.pack_weights));
    CHECK(c.pack_weight_slices == 2);  // ceil(36864 / (13 * 256 * 8))
    std::string why;
    const igemm::Problem p = *ConvImplicitGemmSolver::problem_of(*plan, &why);
    CHECK(igemm::relayout_grid(p, c) == std::array<std::int64_t, 3>{13, 1, 2 + 2});
    CHECK(c.describe().find("B:vec(packed with x)") != std::string::npos);
    CHECK(ConvImplicitGemmSolver().kernels(*plan, sm90()).size() == 2);  // the GEMM and x's re-layout
    for (const auto& h : ConvImplicitGemmSolver::pack_request_for(*plan, c, true).generated_headers) {
      if (h.path == "hf_igemm.h") CHECK(h.text.find("PackWeightSlices = 2;") != std::string::npos);
    }
    // The folded stem: the first blocks of its 1-D grid (64 x 32 x 7 weights, 8 a thread).
    ConvCase stem = reference_layer(DataType::half, Layout::nchw, 3, 224, 64, 7);
    stem.stride = 2;
    auto stem_plan = make_plan(stem);
    const igemm::Config f = ConvImplicitGemmSolver::config_for(*stem_plan, sm90());
    REQUIRE(f.fold.active());
    CHECK(f.pack_weight_slices == 7);
    CHECK(igemm::relayout_grid(*ConvImplicitGemmSolver::problem_of(*stem_plan, &why), f) ==
          std::array<std::int64_t, 3>{64 * 224 * 112 / 256 + 7, 1, 1});
    // No room past 65535 images in grid z: a launch of their own.
    ConvCase many = cc;
    many.n = 65535;
    many.c = many.k = 8;
    many.h = many.w = 3;
    auto many_plan = make_plan(many);
    const igemm::Config m = ConvImplicitGemmSolver::config_for(*many_plan, sm90());
    REQUIRE((m.pack_input && m.pack_weights));
    CHECK(m.pack_weight_slices == 0);
    CHECK(ConvImplicitGemmSolver().kernels(*many_plan, sm90()).size() == 3);
    // Only x re-laid out (a prologue on NHWC x, weights already (r, s, c)): nothing rides along.
    const igemm::Config pro = ConvImplicitGemmSolver::config_for(*make_plan(ConvCase{}, Chain::prologue_bn_relu), sm90());
    CHECK(pro.pack_input);
    CHECK_FALSE(pro.pack_weights);
    CHECK(pro.pack_weight_slices == 0);
  }
  SUBCASE("few input channels: the filter width folded into the channels, A and B in vectors") {
    ConvCase stem = reference_layer(DataType::half, Layout::nhwc, 3, 224, 64, 7);
    stem.stride = 2;
    for (Layout layout : {Layout::nhwc, Layout::nchw}) {
      stem.layout = layout;
      auto plan = make_plan(stem);
      const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90());
      CAPTURE(c.describe());
      REQUIRE(c.fold.active());
      CHECK(c.fold.s == 7);
      CHECK(c.fold.channels == 32);  // 7 x 3 = 21, rounded up to a power of two (sector-aligned runs)
      CHECK(c.fold.stride == 2);
      CHECK(c.fold.pad == 3);
      CHECK((c.pack_input && c.pack_weights));
      CHECK(c.a_loader == igemm::Loader::async16);
      CHECK(c.b_loader == igemm::Loader::async16);
      // The GEMM's problem: a 7 x 1 convolution over 224 x 112 columns of 32 channels.
      const igemm::Problem g = ConvImplicitGemmSolver::gemm_problem_of(*plan, c);
      CHECK(g.c == 32);
      CHECK(g.s == 1);
      CHECK(g.w == 112);
      CHECK(g.q == 112);
      CHECK(g.stride_w == 1);
      CHECK(g.pad_w == 0);
      CHECK(g.gemm_k() == 7 * 32);
      for (bool input : {false, true}) {
        for (const auto& h : ConvImplicitGemmSolver::pack_request_for(*plan, c, input).generated_headers) {
          if (h.path == "hf_igemm.h") CHECK(h.text.find("FoldS = 7, FoldStrideW = 2, FoldPadW = 3") != std::string::npos);
          if (h.path == "hf_plan.h") CHECK(h.text.find("kStrideW = 1") != std::string::npos);
        }
      }
    }
    ConvCase narrow = stem;  // 3x3 on 4 channels: 12 rounded up to 16
    narrow.layout = Layout::nhwc;
    narrow.c = 4;
    narrow.r = narrow.s = 3;
    narrow.pad = 1;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(narrow), sm90()).fold.channels == 16);
    ConvCase one_channel = stem;  // 7 values: one 32-byte sector
    one_channel.c = 1;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(one_channel), sm90()).fold.channels == 16);
    ConvCase eleven = stem;  // 33 values: 64
    eleven.s = 11;
    eleven.pad = 5;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(eleven), sm90()).fold.channels == 64);
    ConvCase wide = stem;  // 5 channels: gathered as before
    wide.c = 5;
    CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(wide), sm90()).fold.active());
    ConvCase f32 = stem;  // the fp32 SIMT kernel: not folded (not measured)
    f32.type = DataType::float32;
    CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(f32), sm90()).fold.active());
    f32.tf32 = true;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(f32), sm90()).fold.channels == 32);  // 21 fp32 values: 84 -> 128 bytes
    ConvCase one = as_1x1(stem);  // nothing to fold
    CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(one), sm90()).fold.active());
  }
  SUBCASE("fp32 with allow_tf32 runs on the matrix units") {
    ConvCase cc;
    cc.type = DataType::float32;
    cc.tf32 = true;
    auto c = ConvImplicitGemmSolver::config_for(*make_plan(cc), sm90());
    CHECK(c.kernel == igemm::Kernel::matrix);
    cc.tf32 = false;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(cc), sm90()).kernel == igemm::Kernel::simt);
  }
}

TEST_CASE("igemm: every tile x data type x layout compiles for sm_90 with hipRTC") {
  const reliability::TempDir cache_dir("hipfuse-igemm-compile-test");
  const reliability::CacheAt fresh(cache_dir.path(), false);  // every variant really compiles
  auto& compiler = rt::KernelCompiler::instance();

  struct Variant {
    DataType type;
    bool tf32;
    std::vector<const char*> tiles;
    bool nchw_1x1 = false;  // NCHW 1x1 layers only: the pixel-copy A loader
    bool nhwc_1x1 = false;  // NHWC 1x1 layers only: A by tensor map on warp-specialised tiles
  };
  const std::vector<Variant> variants = {
      {DataType::half, false, {"128x128", "128x128w8", "256x64", "128x64", "64x64", "128x32"}},
      {DataType::bfloat16, false, {"128x128", "128x128w8", "256x64", "128x64", "64x64", "128x32"}},
      {DataType::float32, true, {"128x128", "64x64"}},
      {DataType::half, false, {"128x128k64", "128x128w8k64", "256x64k64", "128x64k64", "128x64w8k64", "128x64k64p"}},
      {DataType::bfloat16, false, {"128x128k64", "128x128w8k64", "256x64k64", "128x64k64", "128x64w8k64", "128x64k64p"}},
      {DataType::float32, true, {"128x128k64", "128x64k64p"}},
      {DataType::float32, false, {"simt128x128", "simt128x64", "simt64x64", "simt128x128k16", "simt128x64k16"}},
      // wgmma, compiled for sm_90a
      {DataType::half, false, {"wg128x128", "wg128x64", "wg64x128", "wg128x256", "wg256x128", "wg192x128"}},
      {DataType::bfloat16, false, {"wg128x128", "wg128x64", "wg64x128", "wg128x256", "wg256x128", "wg192x128"}},
      // persistent, forced only (wg128x256p on a 1x1: its shared memory fits only one k-tile)
      {DataType::half, false, {"wg64x128p", "wg128x64p", "wg128x128p", "wg128x256p", "wg192x128p", "64x64k64p"}},
      {DataType::bfloat16, false, {"wg64x128p", "wg128x64p", "wg128x128p", "wg128x256p", "wg192x128p", "64x64k64p"}},
      // NCHW 1x1 (below): A copied along the pixels into an MN-major tile, every tile kind
      {DataType::half, false, {"128x128", "256x64", "128x64", "64x64", "128x32", "128x128w8"}, true},
      {DataType::bfloat16, false, {"128x128k64", "256x64k64", "128x64k64", "128x64k64p", "64x64k64p"}, true},
      {DataType::half, false, {"wg128x128", "wg128x64", "wg64x128", "wg128x256", "wg192x128", "wg128x128p"}, true},
      {DataType::bfloat16, false, {"wg256x128", "wg64x128p", "wg128x64p", "wg128x256p"}, true},
      // stream-K (k-tile ranges per block, shared tiles summed through scratch)
      {DataType::half, false, {"wg128x256/sk", "wg128x128/sk", "128x64k64/sk", "128x128/sk"}},
      {DataType::float32, true, {"128x128/sk"}},
      // warp-specialised (a loader warpgroup on mbarriers; ignored where a loader is gathered)
      {DataType::half, false, {"wg128x128/ws", "wg128x64/ws", "wg64x128/ws", "wg128x256/ws", "wg256x128/ws", "wg192x128/ws"}},
      {DataType::bfloat16, false, {"wg128x128/ws", "wg192x128/ws"}},
      {DataType::half, false, {"wg128x128/ws", "wg128x256/ws"}, true},
      {DataType::half, false, {"wg128x128/ws", "wg128x64/ws", "wg64x128/ws", "wg128x256/ws", "wg256x128/ws", "wg192x128/ws"},
       false, true},
      {DataType::bfloat16, false, {"wg128x128/ws", "wg192x128/ws"}, false, true},
      // 16-bit epilogue staging (channels-last y only: plain elsewhere)
      {DataType::half, false, {"128x64k64p/s16", "64x64k64p/s16", "128x128/s16", "128x64/s16", "wg128x128/s16",
                               "wg128x128p/s16", "wg192x128/ws+s16", "wg128x256/ws+s16"}},
      {DataType::bfloat16, false, {"128x64k64p/s16", "wg128x128/ws+s16"}, false, true},
      // persistent and warp-specialised: the loaders run on into the block's next tile
      {DataType::half, false, {"wg128x128p/ws", "wg128x64p/ws", "wg64x128p/ws", "wg128x128p/ws+s16", "wg192x128p/ws+s16"}},
      // A by im2col tensor map (3x3 here; NCHW x re-laid out first)
      {DataType::half, false, {"wg192x128/ws+im2col", "wg128x128/ws+im2col+s16", "wg128x64p/ws+im2col+s16", "wg128x256/ws+im2col"}},
      {DataType::bfloat16, false, {"wg192x128/ws+im2col+s16", "wg128x128p/ws+im2col", "wg192x128p/ws+im2col+s16"}},
      // NCHW x re-laid out beside the GEMM (Config::stream_input), and before it
      {DataType::half, false, {"wg128x64p/ws+im2col+s16+stream", "wg128x128p/ws+im2col+stream", "wg192x128/ws+im2col+stream"}},
      {DataType::bfloat16, false, {"wg128x128p/ws+im2col+s16+stream", "wg128x64p/ws+im2col+serial"}},
      {DataType::half, false, {"wg128x128p/ws+s16", "wg128x64p/ws+s16", "wg64x128p/ws", "wg128x128p/ws"}, false, true},
      {DataType::bfloat16, false, {"wg128x128p/ws+s16"}, false, true},
      // two stages (/st2) on warp-specialised tiles, and on mma.sync ones
      {DataType::half, false, {"wg128x64p/ws+s16+st2", "wg128x128p/ws+s16+st2", "wg192x128/ws+st2", "128x64k64p/st2"},
       false, true},
      {DataType::half, false, {"wg128x128p/ws", "wg64x128p/ws"}, true},
      // NCHW 1x1 (A along the pixels, a loader warpgroup) with 16-bit staging along the pixels
      {DataType::half, false, {"wg128x128p/ws+s16", "wg64x128p/ws+s16", "wg128x64p/ws+s16"}, true},
      // the staged tile stored by tensor map (channels-last y; the plain store elsewhere)
      {DataType::half, false, {"wg128x128p/ws+s16+bs", "wg64x128p/ws+s16+bs", "wg192x128p/ws+im2col+s16+bs"}},
      {DataType::bfloat16, false, {"wg128x64p/ws+s16+st2+bs", "wg128x128p/ws+s16+bs"}, false, true},
      // channel widths other than 64 / 128 / 256 (wgmma's n in steps of 16), as fitted to the waves
      {DataType::half, false, {"wg128x128p/ws+s16+n112", "wg128x128p/ws+s16+n208", "wg128x128p/ws+n144"}, false, true},
      {DataType::bfloat16, false, {"wg128x128p/ws+im2col+s16+n112", "wg128x128p/ws+s16+n80", "wg128x128/n176"}},
      {DataType::half, false, {"wg128x128p/ws+s16+n96", "wg128x128p/n240"}, true},
  };
  int compiled = 0, streamed = 0, stored = 0;
  for (const Variant& v : variants) {
    for (Layout layout : {Layout::nhwc, Layout::nchw}) {
      if ((v.nchw_1x1 && layout != Layout::nchw) || (v.nhwc_1x1 && layout != Layout::nhwc)) continue;
      for (const char* tile : v.tiles) {
        ConvCase cc;
        cc.type = v.type;
        cc.tf32 = v.tf32;
        cc.layout = layout;
        // Alternate chains and shapes so that every loader and epilogue path is built.
        Chain chain = compiled % 3 == 0 ? Chain::bias_relu
                      : compiled % 3 == 1 ? Chain::bn_elu_residual
                                          : Chain::prologue_bn_relu;
        if (v.nchw_1x1) {  // 14 x 14 (8-byte copies) and 16 x 16 (16-byte); no prologue (gathered)
          cc = as_1x1(cc);
          if (compiled % 2 == 0) cc.h = cc.w = 16;
          if (chain == Chain::prologue_bn_relu) chain = Chain::bias_relu;
        }
        if (v.nhwc_1x1) {  // 64 channels (one k-tile, one stage) and 200 (four, the last partial)
          cc = as_1x1(cc);
          if (compiled % 2 == 0) cc.c = 200;
        }
        if (compiled % 4 == 3) {  // odd channels: the per-element gather paths
          cc.c = 17;
          cc.k = 33;
        }
        // NCHW 1x1 on 7 x 7 planes with C >= 2K: x re-laid out by whole-plane runs first
        const bool plane_runs = v.nchw_1x1 && compiled % 4 == 1;
        if (plane_runs) {
          cc.h = cc.w = 7;
          cc.k = 32;
        }
        if (std::string(tile) == "wg128x256p") {  // its shared memory fits one k-tile only: a 1x1
          cc = as_1x1(cc);
        }
        auto plan = make_plan(cc, chain);
        const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90(), tile);
        CAPTURE(config.describe());
        CAPTURE(layout == Layout::nhwc ? "nhwc" : "nchw");
        const std::string type_name = name_of(v.type);
        CAPTURE(type_name);
        const std::string name = tile;
        CHECK(std::string(config.tile.name()) == name.substr(0, name.find('/')));
        CHECK((config.stream_k_blocks > 0) == (name.find("/sk") != std::string::npos));
        // 16-bit staging: y along channels in vectors of 2 or more, or along the pixels, Ng even.
        const bool even_ng = (cc.k / cc.groups) % 2 == 0;
        CHECK(config.stage_16bit == (name.find("s16") != std::string::npos &&
                                     (config.out_along_k ? config.out_vec >= 2 : even_ng)));
        if (name.find("s16") != std::string::npos && (layout == Layout::nhwc ? cc.k % 8 == 0 : even_ng)) {
          CHECK(config.stage_16bit);
        }
        CHECK(config.warp_specialized == (name.find("/ws") != std::string::npos &&
                                          config.a_loader != igemm::Loader::gather &&
                                          config.b_loader == igemm::Loader::async16));
        if (v.nchw_1x1) CHECK(config.a_loader == (plane_runs ? igemm::Loader::async16 : igemm::Loader::pixels));
        if (plane_runs) CHECK(config.pack_input);
        // A by map: 1x1 on pixel rows, or (im2col) any channels-last x of whole 64-channel taps
        if (config.warp_specialized) CHECK(config.tma_a == (v.nhwc_1x1 || plane_runs || config.tma_a_im2col));
        const bool im2col = name.find("im2col") != std::string::npos;
        if (!im2col) CHECK_FALSE(config.tma_a_im2col);
        if (im2col && config.warp_specialized && cc.c % 64 == 0) CHECK(config.tma_a_im2col);
        if (name.find("serial") != std::string::npos) CHECK_FALSE(config.stream_input);
        if (name.find("stream") != std::string::npos && config.pack_input && config.pack_block_lanes > 0 &&
            config.tma_a_im2col) {
          CHECK(config.stream_input);
        }
        streamed += config.stream_input ? 1 : 0;
        // The tensor-map store: only where asked for, on persistent warp-specialised tiles with
        // 16-bit staging of channels-last y in 16-byte vectors (one group); on all of those.
        const bool tensor_store_fits = layout == Layout::nhwc && cc.groups == 1 && config.warp_specialized &&
                                       config.tile.persistent && config.stage_16bit && config.out_along_k &&
                                       config.out_vec == 8;
        CHECK(config.tma_store == (name.find("bs") != std::string::npos && tensor_store_fits));
        stored += config.tma_store ? 1 : 0;
        rt::CompileReport report;
        std::vector<char> code;
        CHECK_NOTHROW(code = compiler.binary(ConvImplicitGemmSolver::request_for(*plan, config), "sm_90", 32, &report));
        CHECK(!code.empty());
        for (bool input : {false, true}) {
          if (input ? !config.pack_input : !config.pack_weights) continue;
          CHECK_NOTHROW(code = compiler.binary(ConvImplicitGemmSolver::pack_request_for(*plan, config, input), "sm_90", 32));
          CHECK(!code.empty());
        }
        ++compiled;
      }
    }
  }
  CHECK(streamed >= 3);  // re-layouts streamed beside their GEMM among them ("/stream")
  CHECK(stored >= 3);    // and tiles stored by tensor map ("/bs")
  MESSAGE(compiled << " implicit-GEMM variants compiled for sm_90, " << streamed << " with a streamed re-layout, "
                   << stored << " stored by tensor map");
}

// x past the re-layout's scratch (1 GiB): the GEMM gathers it as given and the weights are
// re-laid out by a launch of their own, which compiles the re-layout's source with no tile of
// x's (that header once failed its static_assert: miopenStatusInternalError on a valid plan).
TEST_CASE("igemm: NCHW x too large to re-lay out: the weights' own re-layout compiles") {
  const reliability::TempDir cache_dir("hipfuse-igemm-weights-only-test");
  const reliability::CacheAt fresh(cache_dir.path(), false);
  auto& compiler = rt::KernelCompiler::instance();
  ConvCase cc;
  cc.layout = Layout::nchw;
  cc.n = 1024;
  cc.h = cc.w = 128;  // 1024 x 64 x 128 x 128 fp16: 2 GiB
  auto plan = make_plan(cc);
  const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90());
  CAPTURE(config.describe());
  CHECK_FALSE(config.pack_input);
  REQUIRE(config.pack_weights);
  CHECK(config.pack_weight_slices == 0);
  std::vector<char> code;
  CHECK_NOTHROW(code = compiler.binary(ConvImplicitGemmSolver::request_for(*plan, config), "sm_90", 32));
  CHECK(!code.empty());
  CHECK_NOTHROW(code = compiler.binary(ConvImplicitGemmSolver::pack_request_for(*plan, config, false), "sm_90", 32));
  CHECK(!code.empty());
}

TEST_CASE("igemm: warp specialisation: a loader warpgroup and its barriers, only on pipelined cp.async wgmma tiles") {
  ConvCase cc;  // 3x3 64 -> 64: 9 k-tiles of 64
  cc.n = 64;
  cc.h = cc.w = 56;
  for (const char* tile : {"wg128x128", "wg192x128", "wg128x256"}) {
    CAPTURE(tile);
    auto plan = make_plan(cc);
    const igemm::Config plain = ConvImplicitGemmSolver::config_for(*plan, sm90(), tile);
    const igemm::Config ws = ConvImplicitGemmSolver::config_for(*plan, sm90(), std::string(tile) + "/ws");
    CHECK_FALSE(plain.warp_specialized);
    REQUIRE(ws.warp_specialized);
    // A 3x3's A is gathered per tap by cp.async (a loader warpgroup); its weights are rows of
    // GEMM K, moved by tensor map.
    CHECK_FALSE(ws.tma_a);
    CHECK(ws.tma_b);
    CHECK(ws.threads == plain.threads + 128);
    CHECK(ws.shared_bytes == plain.shared_bytes + 16 * ws.tile.stages + 8);  // a full and an empty mbarrier a stage
    CHECK(ws.describe() == plain.describe().replace(plain.describe().find(" A:"), 0, " ws tma:B"));
    const rt::KernelRequest r = ConvImplicitGemmSolver::request_for(*plan, ws);
    CHECK(declares(r, "constexpr bool WarpSpecialized = true;"));
    CHECK(declares(r, "constexpr bool TmaA = false, TmaB = true;"));
  }
  // A 1x1, stride-1 convolution on channels-last x: both operands by tensor map, one loader
  // warp; not with stride 2, nor along the pixels of NCHW x (B's map only), nor where a k-tile
  // would straddle two groups.
  {
    ConvCase one = cc;  // 1x1 256 -> 64
    one.c = 256;
    one = as_1x1(one);
    auto plan = make_plan(one);
    const igemm::Config plain = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128");
    const igemm::Config ws = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/ws");
    CHECK(ws.tma_a);
    CHECK(ws.tma_b);
    CHECK(ws.threads == plain.threads + 32);
    CHECK(ws.describe() == plain.describe().replace(plain.describe().find(" A:"), 0, " ws tma:AB"));
    CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, ws), "constexpr bool TmaA = true, TmaB = true;"));
    ConvCase strided = one;
    strided.stride = 2;
    const igemm::Config s2 = ConvImplicitGemmSolver::config_for(*make_plan(strided), sm90(), "wg128x128/ws");
    CHECK(s2.warp_specialized);
    CHECK_FALSE(s2.tma_a);
    CHECK(s2.tma_b);
    ConvCase nchw = one;
    nchw.layout = Layout::nchw;
    const igemm::Config pixels = ConvImplicitGemmSolver::config_for(*make_plan(nchw), sm90(), "wg128x128/ws");
    CHECK(pixels.a_loader == igemm::Loader::pixels);
    CHECK_FALSE(pixels.tma_a);
    CHECK(pixels.tma_b);
    ConvCase grouped = one;  // 2 groups of 96 channels: the second k-tile of group 0 would read group 1's
    grouped.c = 192;
    grouped.k = 128;
    grouped.groups = 2;
    const igemm::Config g = ConvImplicitGemmSolver::config_for(*make_plan(grouped), sm90(), "wg128x128/ws");
    CHECK(g.warp_specialized);
    CHECK_FALSE(g.tma_a);
    CHECK(g.tma_b);
    grouped.c = 256;  // 2 groups of 128: whole k-tiles
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(grouped), sm90(), "wg128x128/ws").tma_a);
    ConvCase planes = nchw;  // NCHW 1x1 on 7 x 7 planes, C >= 2K: x re-laid out as packed NHWC, then A by map
    planes.h = planes.w = 7;
    planes.n = 3;
    const igemm::Config packed = ConvImplicitGemmSolver::config_for(*make_plan(planes), sm90(), "wg128x128/ws");
    CHECK(packed.pack_input);
    CHECK(packed.tma_a);
    std::string why;
    const auto problem = ConvImplicitGemmSolver::problem_of(*make_plan(planes), &why);
    REQUIRE(problem);
    CHECK(igemm::input_row_stride(*problem, packed) == 256);  // the packed pixels' channels
  }
  // Not where a loader goes through registers (a prologue on a 1x1, which is not re-laid out),
  // nor stream-K or mma.sync tiles; one-stage ones of a single k-tile and persistent ones, yes.
  ConvCase wide = cc;  // 1x1 256 -> 64: 4 k-tiles
  wide.c = 256;
  wide = as_1x1(wide);
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(wide), sm90(), "wg128x128/ws").warp_specialized);
  const igemm::Config gathered =
      ConvImplicitGemmSolver::config_for(*make_plan(wide, Chain::prologue_bn_relu), sm90(), "wg128x128/ws");
  CHECK(gathered.a_loader == igemm::Loader::gather);
  CHECK_FALSE(gathered.warp_specialized);
  auto plan = make_plan(cc);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "128x64k64/ws").warp_specialized);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/ws+sk").warp_specialized);
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/ws+sk").stream_k_blocks > 0);
  ConvCase one = cc;  // 1x1 64 -> 64: one k-tile, one stage
  one = as_1x1(one);
  const igemm::Config single = ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), "wg128x128/ws");
  CHECK(single.tile.stages == 1);
  CHECK(single.warp_specialized);
  CHECK(single.tma_a);
  // Persistent: the loaders run ahead into the block's next tile, so one k-tile gets two
  // stages; the staging lies past them, the mbarriers past both; the grid is the resident blocks.
  for (const char* mode : {"wg128x128p/ws", "wg128x128p/ws+s16", "wg128x64p/ws"}) {
    CAPTURE(mode);
    const igemm::Config plain = ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), std::string(mode).substr(0, std::string(mode).find('/')));
    const igemm::Config pws = ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), mode);
    REQUIRE(pws.warp_specialized);
    CHECK(pws.tile.persistent);
    CHECK(pws.tma_a);
    CHECK(plain.tile.stages == 1);
    CHECK(pws.tile.stages == 2);
    const int bm = pws.tile.bm, bn = pws.tile.bn;
    const int stage = (bm + bn) * 128, staging = bm * (bn + 8) * (pws.stage_16bit ? 2 : 4);
    const int channels = pws.stage_16bit ? bn * hf::kEpilogueChannelBytes : 0;  // epilogue parameters
    CHECK(pws.shared_bytes == 2 * stage + staging + channels + 1024 + 16 * 2 + 8);
    CHECK(pws.threads == plain.threads + 32);  // one loader warp: both operands by map
    CHECK(pws.grid_x <= pws.tiles);
    CHECK(pws.grid_x == std::min<std::int64_t>(pws.tiles, 132 * pws.tile.min_blocks));
    CHECK(pws.tile.min_blocks >= 1);
    CHECK(pws.describe().find("persistent") != std::string::npos);
    CHECK(pws.describe().find(" ws tma:AB") != std::string::npos);
  }
  // With a copied A (3x3): a loader warpgroup, the candidate's stages.
  const igemm::Config pws3 = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws");
  CHECK(pws3.warp_specialized);
  CHECK(pws3.tma_b);
  CHECK_FALSE(pws3.tma_a);
  CHECK(pws3.threads == 256 + 128);
}

// "/im2col" (forced, with "/ws"): A's k-tiles gathered by an im2col tensor map, one box a filter
// tap, where a pixels x channels map cannot read x (filters past 1x1, strides, padding).
TEST_CASE("igemm: im2col tensor maps for A: where they fit, the map's shape, the header") {
  ConvCase cc;  // 3x3 64 -> 128, pad 1, NHWC
  cc.n = 4;
  cc.h = cc.w = 14;
  cc.c = 64;
  cc.k = 128;
  auto plan = make_plan(cc);
  const igemm::Config ws = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/ws");
  const igemm::Config i2c = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/ws+im2col");
  REQUIRE(i2c.warp_specialized);
  CHECK_FALSE(ws.tma_a);
  CHECK(i2c.tma_a);
  CHECK(i2c.tma_a_im2col);
  CHECK(i2c.tma_b);
  CHECK(i2c.threads == ws.threads - 128 + 32);  // one loader warp: both operands by map
  CHECK(i2c.describe().find(" ws tma:AB im2col") != std::string::npos);
  const rt::KernelRequest r = ConvImplicitGemmSolver::request_for(*plan, i2c);
  CHECK(declares(r, "constexpr bool TmaA = true, TmaB = true;"));
  CHECK(declares(r, "constexpr bool TmaAIm2col = true;"));
  CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, ws), "constexpr bool TmaAIm2col = false;"));
  // Persistent and 16-bit staged too; without "/im2col" the cp.async loaders stay.
  const igemm::Config pws = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p/ws+im2col+s16");
  CHECK(pws.tma_a_im2col);
  CHECK(pws.stage_16bit);
  CHECK(pws.tile.persistent);
  std::string why;
  // Strides: x as the GEMM reads it (image, row, pixel), channels dense.
  const auto problem = ConvImplicitGemmSolver::problem_of(*plan, &why);
  REQUIRE(problem);
  CHECK(igemm::input_pixel_strides(*problem, i2c) == std::array<std::int64_t, 3>{14 * 14 * 64, 14 * 64, 64});
  CHECK(igemm::im2col_fits(*problem, i2c));
  // A 1x1 stride-2 layer: windows 2 apart.
  ConvCase s2 = as_1x1(cc);
  s2.stride = 2;
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(s2), sm90(), "wg128x64p/ws+im2col").tma_a_im2col);
  // NCHW 3x3: x re-laid out as packed NHWC first, then windows of the packed tensor.
  ConvCase nchw = cc;
  nchw.layout = Layout::nchw;
  const igemm::Config packed = ConvImplicitGemmSolver::config_for(*make_plan(nchw), sm90(), "wg128x128/ws+im2col");
  CHECK(packed.pack_input);
  CHECK(packed.tma_a_im2col);
  // A 1x1 stride-1 layer keeps the plain matrix map.
  ConvCase one = as_1x1(cc);
  const igemm::Config plain_map = ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), "wg128x128/ws+im2col");
  CHECK(plain_map.tma_a);
  CHECK_FALSE(plain_map.tma_a_im2col);
  // Not where a k-tile would span two filter taps (C not a multiple of 64), nor for a gathered A
  // (a prologue on a 1x1), nor without warp specialisation.
  ConvCase odd = cc;
  odd.c = 200;
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(odd), sm90(), "wg128x128/ws+im2col").tma_a_im2col);
  ConvCase pro = one;
  pro.stride = 2;
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(pro, Chain::prologue_bn_relu), sm90(), "wg128x128/ws+im2col")
                  .tma_a_im2col);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/im2col").tma_a_im2col);
  // Window bounds past a 4-D map's [-128, 127]: padding 130; filter offsets past 8 bits: a 3x3
  // with dilation 130.
  ConvCase wide = cc;
  wide.pad = 130;
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(wide), sm90(), "wg128x128/ws+im2col").tma_a_im2col);
  ConvCase dilated = cc;
  dilated.h = dilated.w = 300;
  dilated.n = 1;
  dilated.dil = 130;
  dilated.pad = 0;
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(dilated), sm90(), "wg128x128/ws+im2col").tma_a_im2col);
  dilated.dil = 60;  // offsets up to 120, corners -120
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(dilated), sm90(), "wg128x128/ws+im2col").tma_a_im2col);
}

TEST_CASE("igemm: 16-bit epilogue staging: the heuristic's tiles and /s16, 16-bit y, half the staging") {
  ConvCase one;  // 1x1 64 -> 256 56x56: the memory-bound layer whose epilogue staging was profiled
  one.n = 8;
  one.h = one.w = 56;
  one.k = 256;
  one = as_1x1(one);
  for (const char* tile : {"128x64k64p", "64x64k64p", "128x128", "wg128x128", "wg128x128p"}) {
    CAPTURE(tile);
    auto plan = make_plan(one);
    const igemm::Config plain = ConvImplicitGemmSolver::config_for(*plan, sm90(), tile);
    const igemm::Config s16 = ConvImplicitGemmSolver::config_for(*plan, sm90(), std::string(tile) + "/s16");
    CHECK_FALSE(plain.stage_16bit);
    REQUIRE(s16.stage_16bit);
    CHECK(s16.tile.name() == plain.tile.name());
    CHECK(s16.describe() == plain.describe().replace(plain.describe().find(" A:"), 0, " s16"));
    // [BM][BN + 8] staged values of 2 bytes instead of 4: persistent tiles add the staging to
    // the pipeline, the others overlap the two; past both, each output channel's epilogue
    // parameters, prepared once a tile.
    const int bm = s16.tile.bm, bn = s16.tile.bn;
    const int pipe = s16.tile.stages * (bm + bn) * 16 * s16.tile.k_chunks + (s16.tile.warpgroup ? 1024 : 0);
    const int channels = bn * hf::kEpilogueChannelBytes;
    if (s16.tile.persistent) {
      CHECK(s16.shared_bytes == pipe + bm * (bn + 8) * 2 + channels);
      CHECK(plain.shared_bytes - s16.shared_bytes == bm * (bn + 8) * 2 - channels);
    } else {
      CHECK(s16.shared_bytes <= plain.shared_bytes + channels);
    }
    CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, s16), "constexpr bool Stage16 = true;"));
    CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, plain), "constexpr bool Stage16 = false;"));
  }
  // Combined with warp specialisation; on the heuristic's own tile, by default or with "/s16"
  // (a forced tile without the mode stays plain, above: the sweeps compare the two).
  auto plan = make_plan(one);
  const igemm::Config both = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/ws+s16");
  CHECK(both.warp_specialized);
  CHECK(both.stage_16bit);
  const igemm::Config heuristic = ConvImplicitGemmSolver::config_for(*plan, sm90(), "");
  const igemm::Config heuristic_s16 = ConvImplicitGemmSolver::config_for(*plan, sm90(), "/s16");
  CHECK(heuristic.stage_16bit);
  CHECK(heuristic_s16.stage_16bit);
  CHECK(heuristic_s16.tile.name() == heuristic.tile.name());
  // Where y runs along the pixels (NCHW): [BN][BM + 8] 16-bit values, so that the fragments'
  // column pairs land 8 banks apart; not with an odd channel count (a thread's channel pair
  // would straddle the end), nor for fp32 (tf32) data.
  ConvCase nchw = one;
  nchw.layout = Layout::nchw;
  const igemm::Config along_m = ConvImplicitGemmSolver::config_for(*make_plan(nchw), sm90(), "128x64k64p/s16");
  const igemm::Config along_m_fp32 = ConvImplicitGemmSolver::config_for(*make_plan(nchw), sm90(), "128x64k64p");
  CHECK_FALSE(along_m.out_along_k);
  REQUIRE(along_m.stage_16bit);
  CHECK_FALSE(along_m_fp32.stage_16bit);
  const int pipe_m = along_m.tile.stages * (128 + 64) * 16 * along_m.tile.k_chunks;
  CHECK(along_m.shared_bytes == pipe_m + 64 * (128 + 8) * 2 + 64 * hf::kEpilogueChannelBytes);
  CHECK(along_m_fp32.shared_bytes == pipe_m + 64 * (128 + 4) * 4);
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(nchw), sm90()).stage_16bit);  // the heuristic's tile
  ConvCase odd = nchw;
  odd.k = 255;
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(odd), sm90(), "128x64k64p/s16").stage_16bit);
  ConvCase fp32 = one;
  fp32.type = DataType::float32;
  fp32.tf32 = true;
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(fp32), sm90(), "128x64k64p/s16").stage_16bit);
}

TEST_CASE("igemm: stream-K: forced only, the resident blocks, at most one per k-tile") {
  // Batch-64 ResNet-50 layers, fp16 NHWC, on 132 SMs, whose tiles make at most one wave (the
  // 7x7 ones leave SMs idle; the 14x14 ones fill it with 192x128): the heuristic keeps one
  // block per tile (stream-K measured slower there, v7 and v17), persistent on the 7x7 ones.
  struct Layer {
    int c, hw, k, r;
  } layers[] = {{256, 14, 256, 3}, {512, 7, 512, 3}, {2048, 7, 512, 1}, {1024, 14, 256, 1}};
  for (const Layer& l : layers) {
    CAPTURE(l.c);
    CAPTURE(l.k);
    auto plan = make_plan(reference_layer(DataType::half, Layout::nhwc, l.c, l.hw, l.k, l.r));
    const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90());
    CHECK(c.stream_k_blocks == 0);
    CHECK(c.grid_x == c.tiles);
    CHECK(c.tiles <= 132);
    CHECK(c.tile.persistent == (l.hw == 7));
    // "/sk": the same tile, 132 blocks (one resident per SM for these tiles), in the header;
    // not on a persistent tile (3x3 512->512 7x7's), whose blocks already walk the tiles.
    const igemm::Config sk = ConvImplicitGemmSolver::config_for(*plan, sm90(), "/sk");
    CAPTURE(sk.describe());
    CHECK(sk.tile.name() == std::string(c.tile.name()));
    CHECK(sk.stream_k_blocks == (c.tile.persistent ? 0 : 132));
    if (!c.tile.persistent) {
      CHECK(sk.grid_x == 132);
      CHECK(ConvImplicitGemmSolver::request_for(*plan, sk).generated_headers[1].text.find("StreamKBlocks = 132") !=
            std::string::npos);
    }
    CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "128x64/sk").stream_k_blocks > 0);
  }
  // Never more blocks than k-tiles: a tiny GEMM (1 tile of 9 k-tiles) forced to stream-K.
  ConvCase tiny;
  tiny.n = 1;
  tiny.h = tiny.w = 8;
  tiny.c = tiny.k = 32;
  const igemm::Config t = ConvImplicitGemmSolver::config_for(*make_plan(tiny), sm90(), "128x128/sk");
  CHECK(t.tiles == 1);
  CHECK(t.stream_k_blocks == 9);  // 3x3x32 = 288 = 9 k-tiles of 32: a block each
  // Not for a single-k-tile GEMM (one stage, nothing to split) or a persistent tile.
  ConvCase one = as_1x1(tiny);
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), "128x128/sk").stream_k_blocks == 0);
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(tiny), sm90(), "128x64k64p/sk").stream_k_blocks == 0);
}

TEST_CASE("igemm: HIPFUSE_IGEMM_TILE forces every plan's tile; a tile that does not apply falls back") {
  auto plan = make_plan(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1));
  const igemm::Config heuristic = ConvImplicitGemmSolver::config_for(*plan, sm90());
  REQUIRE(heuristic.stream_k_blocks == 0);
  setenv("HIPFUSE_IGEMM_TILE", "wg128x128/sk", 1);
  const igemm::Config forced = ConvImplicitGemmSolver::config_for(*plan, sm90());
  CHECK(forced.tile.name() == std::string("wg128x128"));
  CHECK(forced.stream_k_blocks == 132);
  // An explicit tile (the tests' and sweeps') wins over the variable.
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg192x128/ws").tile.name() == std::string("wg192x128"));
  // A wgmma tile on fp32: not a tile of that kernel, so the heuristic's choice (with a warning).
  ConvCase fp32 = reference_layer(DataType::float32, Layout::nhwc, 256, 14, 256, 3);
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(fp32), sm90()).tile.name() != std::string("wg128x128"));
  unsetenv("HIPFUSE_IGEMM_TILE");
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90()).describe() == heuristic.describe());
}

TEST_CASE("igemm: one even wave: the grids that may start early after a re-layout") {
  const auto nchw = [](DataType type, int c, int hw, int k, int r, const std::string& tile = {}) {
    return ConvImplicitGemmSolver::config_for(*make_plan(reference_layer(type, Layout::nchw, c, hw, k, r)), sm90(), tile);
  };
  // Persistent: the resident count (3x3 64->64 56x56, wg128x64p, x re-laid out).
  const igemm::Config persistent = nchw(DataType::half, 64, 56, 64, 3);
  CHECK(persistent.pack_input);
  CHECK(persistent.tile.persistent);
  CHECK(persistent.one_even_wave);
  // One block a multiprocessor: wg192x128 on 3x3 256->256 14x14, 132 tiles on 132 SMs.
  const igemm::Config one_each = nchw(DataType::half, 256, 14, 256, 3);
  CHECK_FALSE(one_each.tile.persistent);
  CHECK(one_each.grid_x * one_each.grid_y == 132);
  CHECK(one_each.one_even_wave);
  // More tiles than resident blocks, or several blocks a multiprocessor in part of a wave: the
  // SIMT tiles (fp32) and a non-persistent mma.sync tile.
  CHECK_FALSE(nchw(DataType::float32, 256, 14, 256, 3).one_even_wave);
  CHECK_FALSE(nchw(DataType::half, 64, 56, 64, 3, "128x64").one_even_wave);
  // Stream-K: its blocks are the resident count.
  const igemm::Config sk = nchw(DataType::half, 256, 14, 256, 3, "/sk");
  REQUIRE(sk.stream_k_blocks > 0);
  CHECK(sk.one_even_wave);
}

TEST_CASE("igemm: streamed re-layout: where the kernels can and it pays, or forced; the header") {
  const auto nchw = [](DataType type, int c, int hw, int k, int r, int stride = 1, const std::string& tile = {}) {
    ConvCase cc = reference_layer(type, Layout::nchw, c, hw, k, r);
    cc.stride = stride;
    return std::make_pair(make_plan(cc), ConvImplicitGemmSolver::config_for(*make_plan(cc), sm90(), tile));
  };
  // 3x3 64->64 56x56 fp16: wg128x64p, 1.7 bytes of x per kFLOP; the re-layout's blocks, 13 pixel
  // tiles x 1 channel tile an image, are what its persistent grid walks.
  const auto [plan, c64] = nchw(DataType::half, 64, 56, 64, 3);
  REQUIRE(c64.pack_input);
  REQUIRE(c64.pack_block_lanes > 0);
  CHECK(c64.tile.persistent);
  CHECK(c64.warp_specialized);
  CHECK(c64.tma_a);
  CHECK(c64.tma_b);
  CHECK(c64.stream_input);
  const igemm::Problem given = ConvImplicitGemmSolver::gemm_problem_of(*plan, c64);
  const auto grid = igemm::relayout_grid(given, c64);
  CHECK(grid[0] == 13);
  CHECK(grid[1] == 1);
  CHECK(grid[2] == 64 + c64.pack_weight_slices);
  const std::string header = igemm::generate_header(given, c64);
  CHECK(header.find("StreamInput = true") != std::string::npos);
  CHECK(header.find("PackGridX = 13, PackGridY = 1;") != std::string::npos);
  CHECK(c64.describe().find(" streamed") != std::string::npos);
  // "/serial": the re-layout's whole grid before the GEMM.
  const igemm::Config serial = nchw(DataType::half, 64, 56, 64, 3, 1, "wg128x64p/ws+im2col+s16+serial").second;
  CHECK_FALSE(serial.stream_input);
  CHECK(igemm::generate_header(given, serial).find("StreamInput = false") != std::string::npos);
  // Where it does not pay: few tiles a block (3x3 128->128 28x28: 3; 3x3 512->512 14x14 s2: 1;
  // 3x3 256->256 14x14 on wg192x128: a tile a block), x large for the GEMM's work (3x3 128->128
  // 56x56 s2: 3.5 bytes per kFLOP). "/stream" streams them all the same.
  CHECK_FALSE(nchw(DataType::bfloat16, 128, 28, 128, 3).second.stream_input);
  CHECK_FALSE(nchw(DataType::half, 512, 14, 512, 3, 2).second.stream_input);
  const igemm::Config s2 = nchw(DataType::half, 128, 56, 128, 3, 2).second;
  CHECK(s2.tile.persistent);
  CHECK(s2.tma_a_im2col);
  CHECK_FALSE(s2.stream_input);
  CHECK(nchw(DataType::half, 128, 56, 128, 3, 2, "wg128x128p/ws+im2col+s16+stream").second.stream_input);
  const igemm::Config one_tile = nchw(DataType::half, 256, 14, 256, 3).second;
  CHECK(one_tile.pack_input);
  CHECK_FALSE(one_tile.tile.persistent);
  CHECK_FALSE(one_tile.stream_input);
  CHECK(nchw(DataType::half, 256, 14, 256, 3, 1, "wg192x128/ws+im2col+stream").second.stream_input);
  // The GPU test's cases (tests/gpu/test_igemm.cpp, "streamed NCHW re-layout"), with the
  // prologue the re-layout applies too.
  struct GpuCase {
    int n, c, hw, k, stride;
    const char* tile;
    bool streamed;
  } gpu_cases[] = {{64, 64, 48, 64, 1, "", true},
                   {64, 64, 48, 64, 1, "/serial", false},
                   {16, 256, 28, 256, 2, "wg128x128p/ws+im2col+s16+stream", true},
                   {8, 128, 20, 96, 1, "wg192x128/ws+im2col+stream", true}};
  for (DataType type : {DataType::half, DataType::bfloat16}) {
    for (const GpuCase& g : gpu_cases) {
      for (Chain chain : {Chain::bias_relu, Chain::prologue_bn_relu}) {
        ConvCase cc = reference_layer(type, Layout::nchw, g.c, g.hw, g.k, 3);
        cc.n = g.n;
        cc.stride = g.stride;
        const igemm::Config config = ConvImplicitGemmSolver::config_for(*make_plan(cc, chain), sm90(), g.tile);
        CAPTURE(config.describe());
        CHECK(config.stream_input == g.streamed);
      }
    }
  }
  // Nor where the kernels cannot: cp.async GEMMs (fp32 SIMT, mma.sync), x not re-laid out
  // (NHWC), the shared tile's re-layout (7x7 planes of 1x1 2048->512), no wgmma (sm_80).
  CHECK_FALSE(nchw(DataType::half, 64, 56, 64, 3, 1, "128x64k64p/stream").second.stream_input);
  CHECK_FALSE(nchw(DataType::float32, 256, 14, 256, 3).second.stream_input);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 3)),
                                                 sm90()).stream_input);
  const igemm::Config planes = nchw(DataType::half, 2048, 7, 512, 1).second;
  CHECK(planes.pack_input);
  CHECK_FALSE(planes.stream_input);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(reference_layer(DataType::half, Layout::nchw, 64, 56, 64, 3)),
                                                 sm80()).stream_input);
}

TEST_CASE("igemm: BK 64 tiles: shared memory, stages cut to the k-tiles, sweep-only") {
  struct Expect {
    const char* tile;
    int threads, stages_3x3, pipe_bytes_3x3;
  } expect[] = {
      {"128x128k64", 128, 3, 3 * 256 * 128},
      {"128x128w8k64", 256, 3, 3 * 256 * 128},
      {"256x64k64", 128, 3, 3 * 320 * 128},
      {"128x64k64", 128, 3, 3 * 192 * 128},
      {"128x64w8k64", 256, 3, 3 * 192 * 128},
  };
  for (const Expect& e : expect) {
    CAPTURE(e.tile);
    ConvCase cc;  // 3x3 64 -> 64: GEMM K 576, 9 k-tiles of 64
    cc.n = 64;
    cc.h = cc.w = 56;
    const igemm::Config c = ConvImplicitGemmSolver::config_for(*make_plan(cc), sm90(), e.tile);
    CHECK(std::string(c.tile.name()) == e.tile);
    CHECK(c.tile.k_chunks == 8);
    CHECK(c.threads == e.threads);
    CHECK(c.tile.stages == e.stages_3x3);
    CHECK(c.shared_bytes == std::max(e.pipe_bytes_3x3, c.tile.bm * (c.tile.bn + 8) * 4));
    CHECK(c.shared_bytes <= 227 * 1024);
    CHECK(c.describe().find(" k128B") != std::string::npos);
    // 1x1 64 -> 256: GEMM K 64 is one k-tile, so one stage.
    ConvCase one = cc;
    one.k = 256;
    one = as_1x1(one);
    const igemm::Config c1 = ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), e.tile);
    CHECK(c1.tile.stages == 1);
    CHECK(c1.shared_bytes == std::max((c1.tile.bm + c1.tile.bn) * 128, c1.tile.bm * (c1.tile.bn + 8) * 4));
    // Without wgmma, the automatic choice takes BK 64 where the H200 sweep measured it faster
    // (kPromote and the memory-bound tile in conv_implicit_gemm_config.cpp).
    CHECK(std::string(ConvImplicitGemmSolver::config_for(*make_plan(cc), sm80()).tile.name()) == "128x64k64");
    CHECK(std::string(ConvImplicitGemmSolver::config_for(*make_plan(one), sm80()).tile.name()) == "128x64k64p");
    // On sm_90 channels-last, the persistent warp-specialised wgmma tile with 16-bit staging
    // (kMemoryBoundTileWarpSpecialized); NCHW keeps the mma.sync tile, staged 16-bit too.
    const igemm::Config c90 = ConvImplicitGemmSolver::config_for(*make_plan(one), sm90());
    const bool nhwc = cc.layout == Layout::nhwc;
    CHECK(std::string(c90.tile.name()) == (nhwc ? "wg128x64p" : "128x64k64p"));
    CHECK(c90.stage_16bit);
    CHECK(c90.warp_specialized == nhwc);
    CHECK(c90.tma_a == nhwc);
  }
  SUBCASE("the persistent tile: staging apart from the pipeline, about the resident blocks") {
    ConvCase one;  // 1x1 64 -> 256, 56x56, batch 64: 6272 tiles of 128x64
    one.n = 64;
    one.h = one.w = 56;
    one.k = 256;
    one = as_1x1(one);
    const igemm::Config c = ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), "128x64k64p");
    CHECK(std::string(c.tile.name()) == "128x64k64p");
    CHECK(c.tile.persistent);
    CHECK(c.tile.stages == 1);
    CHECK(c.shared_bytes == 192 * 128 + 128 * 72 * 4);  // 24 KB + 36 KB: 3 blocks per SM
    CHECK(c.grid_x == 132 * 3);
    CHECK(c.describe().find("persistent") != std::string::npos);
    ConvCase three = one;  // 3x3: 3 stages, 108 KB: 2 blocks per SM
    three.k = 64;
    three.r = three.s = 3;
    three.pad = 1;
    const igemm::Config c3 = ConvImplicitGemmSolver::config_for(*make_plan(three), sm90(), "128x64k64p");
    CHECK(c3.grid_x == 132 * 2);
    ConvCase tiny;  // fewer tiles than resident blocks: one per block
    const igemm::Config ct = ConvImplicitGemmSolver::config_for(*make_plan(tiny), sm90(), "128x64k64p");
    CHECK(ct.grid_x == 4);  // 392 pixels: 4 tiles of 128, one of 64 channels
  }
  // The BK 32 tiles keep their stages where K is long, and drop the unused ones where not.
  ConvCase one;
  one.n = 64;
  one.h = one.w = 56;
  one.k = 256;
  one = as_1x1(one);
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), "128x64").tile.stages == 3);
  ConvCase three = one;
  three.k = 64;
  three.r = three.s = 3;
  three.pad = 1;
  CHECK(ConvImplicitGemmSolver::config_for(*make_plan(three), sm90(), "128x64").tile.stages == 4);
}

TEST_CASE("igemm: persistent sweep tiles: staging apart from the pipeline, resident blocks") {
  // The memory-bound 1x1 layers of the sweep (batch 64, fp16); {tile, blocks per SM for GEMM
  // K 64 (one k-tile, one stage), for longer K (0: does not fit)}, all with fp32 staging (the
  // forced tiles' default). The automatic choice takes on NHWC wg128x64p warp-specialised and
  // 16-bit staged; on NCHW, whose A is copied along the pixels, wg128x128p for N >= 128 (GEMM
  // K 64: 64->256; warp-specialised for K 128-512: 256->128, 128->512, 512->128), none of them
  // elsewhere; on NHWC with N >= 512 (128->512) wg128x128p warp-specialised on two stages.
  struct Layer {
    int c, hw, k;
  } layers[] = {{64, 56, 256}, {256, 56, 64}, {64, 56, 64}, {256, 56, 128}, {128, 28, 512}, {512, 28, 128}};
  struct Expect {
    const char* tile;
    int blocks_k64, blocks_longer;
  } expect[] = {
      {"wg64x128p", 3, 2}, {"wg128x64p", 3, 2}, {"wg128x128p", 2, 1}, {"wg128x256p", 1, 0}, {"wg192x128p", 1, 1},
      {"64x64k64p", 5, 4},
  };
  for (const Layer& l : layers) {
    for (Layout layout : {Layout::nhwc, Layout::nchw}) {
      CAPTURE(l.c);
      CAPTURE(l.k);
      auto plan = make_plan(reference_layer(DataType::half, layout, l.c, l.hw, l.k, 1));
      const igemm::Config chosen = ConvImplicitGemmSolver::config_for(*plan, sm90());
      const std::string automatic = chosen.tile.name();
      const bool wide = layout == Layout::nhwc && l.k >= 512;  // wg128x128p on two stages (v39)
      CHECK((automatic == "wg128x64p") == (layout == Layout::nhwc && !wide));
      if (wide) {
        CHECK(automatic == "wg128x128p");
        CHECK(chosen.tile.stages == 2);
        CHECK(chosen.tile.min_blocks == 2);
        CHECK(chosen.warp_specialized);
        CHECK(chosen.stage_16bit);
        CHECK(chosen.grid_x == 132 * 2);
        // The very kernel measured and checked on the GPU forced as "wg128x128p/ws+s16+st2" (v39):
        // the same generated headers, the same launch.
        const igemm::Config forced = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+s16+st2");
        const auto headers = [&](const igemm::Config& c) {
          std::string text;
          for (const auto& h : ConvImplicitGemmSolver::request_for(*plan, c).generated_headers) text += h.text;
          return text;
        };
        CHECK(headers(chosen) == headers(forced));
        CHECK(chosen.describe() == forced.describe());
        CHECK(chosen.shared_bytes == forced.shared_bytes);
        CHECK(chosen.threads == forced.threads);
        CHECK(chosen.grid_x == forced.grid_x);
      }
      for (const Expect& e : expect) {
        CAPTURE(e.tile);
        const bool pick = (layout == Layout::nchw && l.k >= 128) || wide;
        const bool wide_pick = pick && std::string(e.tile) == "wg128x128p";
        if (std::string(e.tile) != "wg128x64p") CHECK((automatic == e.tile) == wide_pick);
        const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90(), e.tile);
        CAPTURE(c.describe());
        const int blocks = l.c == 64 ? e.blocks_k64 : e.blocks_longer;
        if (blocks == 0) {  // past the 227 KB of a block: config_for's fallback
          CHECK(std::string(c.tile.name()) == "64x64");
          continue;
        }
        CHECK(std::string(c.tile.name()) == e.tile);
        CHECK(c.tile.persistent);
        CHECK(c.tile.stages >= (l.c == 64 ? 1 : c.tile.warpgroup ? 3 : 2));
        const int pipe = c.tile.stages * (c.tile.bm + c.tile.bn) * 128;
        const int epi = layout == Layout::nhwc ? c.tile.bm * (c.tile.bn + 8) * 4 : c.tile.bn * (c.tile.bm + 4) * 4;
        CHECK(c.shared_bytes == pipe + epi + (c.tile.warpgroup ? 1024 : 0));
        CHECK(c.shared_bytes <= 227 * 1024);
        CHECK(blocks * (c.shared_bytes + 1024) <= 228 * 1024);
        CHECK(c.tile.min_blocks == blocks);  // the register cap of the resident blocks
        CHECK(c.grid_x == std::min<std::int64_t>(c.tiles, 132 * blocks));
      }
    }
  }
  // Warp-specialised with 16-bit staging, 1x1 64 -> 256: two blocks' shared memory fits either
  // way, but on NCHW x the loaders are a warpgroup (384 threads), whose two blocks would leave
  // 80 registers a thread, below what a m64n128 wgmma needs (BN / 2 + 48 = 112): one block.
  for (Layout layout : {Layout::nhwc, Layout::nchw}) {
    auto plan = make_plan(reference_layer(DataType::half, layout, 64, 56, 256, 1));
    const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+s16");
    CAPTURE(c.describe());
    REQUIRE(c.stage_16bit);
    CHECK(2 * (c.shared_bytes + 1024) <= 228 * 1024);
    CHECK(c.threads == (layout == Layout::nhwc ? 288 : 384));
    CHECK(c.tile.min_blocks == (layout == Layout::nhwc ? 2 : 1));
    CHECK(registers_a_thread(c) >= 128 / 2 + 48);
  }
  // wg128x64p/ws+s16 on the same layer: three blocks' shared memory fits, and the m64n64
  // wgmma needs 80 registers, but on NCHW x the loaders are a cp.async warpgroup (256 threads),
  // which spilled 876 bytes under three blocks' 80 registers a thread: two blocks. On NHWC
  // both operands come by tensor map (one loader warp, 160 threads): three.
  for (Layout layout : {Layout::nhwc, Layout::nchw}) {
    auto plan = make_plan(reference_layer(DataType::half, layout, 64, 56, 256, 1));
    const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p/ws+s16");
    CAPTURE(c.describe());
    REQUIRE(c.warp_specialized);
    CHECK(c.tma_a == (layout == Layout::nhwc));
    CHECK(3 * (c.shared_bytes + 1024) <= 228 * 1024);
    CHECK(c.threads == (layout == Layout::nhwc ? 160 : 256));
    CHECK(c.tile.min_blocks == (layout == Layout::nhwc ? 3 : 2));
    CHECK(c.grid_x == 132 * c.tile.min_blocks);
  }
}

// Every warp-specialised tile whose A loaders are a cp.async warpgroup leaves them at least 120
// registers a thread (their receptive fields spill under less), on every reference layer.
TEST_CASE("igemm: warp-specialised tiles leave cp.async loaders their registers") {
  struct Layer {
    int c, hw, k, r;
  } layers[] = {{64, 56, 256, 1}, {64, 56, 64, 3}, {256, 14, 256, 3}, {256, 56, 128, 1}, {1024, 14, 256, 1},
                {2048, 7, 512, 1}, {64, 56, 64, 1}, {128, 28, 512, 1}};
  const char* tiles[] = {"wg128x128/ws",      "wg128x64/ws",       "wg64x128/ws",       "wg128x256/ws",
                         "wg256x128/ws",      "wg192x128/ws",      "wg128x128p/ws+s16", "wg128x64p/ws+s16",
                         "wg64x128p/ws+s16",  "wg128x256p/ws+s16", "wg192x128p/ws+s16", "wg128x64p/ws+s16+st2",
                         "wg128x64p/ws+im2col+s16"};
  int loader_warpgroups = 0;
  for (DataType t : {DataType::half, DataType::bfloat16}) {
    for (Layout layout : {Layout::nhwc, Layout::nchw}) {
      for (const Layer& l : layers) {
        auto plan = make_plan(reference_layer(t, layout, l.c, l.hw, l.k, l.r));
        for (const char* tile : tiles) {
          const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90(), tile);
          if (!c.warp_specialized || c.tma_a) continue;
          CAPTURE(c.describe());
          ++loader_warpgroups;
          CHECK(registers_a_thread(c) >= 120);
        }
      }
    }
  }
  CHECK(loader_warpgroups > 50);
}

TEST_CASE("igemm: /st<N> caps the pipeline stages: two for warp-specialised tiles, three for other wgmma ones") {
  // fp16 NHWC 1x1 128 -> 512 28x28 (GEMM K 128, two k-tiles of 64): wg128x64p warp-specialised and
  // 16-bit staged keeps 3 stages (94 KB, 2 blocks per SM); with 2 its 3 blocks fit (1 KB a block reserved).
  auto plan = make_plan(reference_layer(DataType::half, Layout::nhwc, 128, 28, 512, 1));
  const igemm::Config three = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p/ws+s16");
  const igemm::Config two = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p/ws+s16+st2");
  CAPTURE(three.describe());
  CAPTURE(two.describe());
  CHECK(three.tile.stages == 3);
  CHECK(three.tile.min_blocks == 2);
  CHECK(two.tile.stages == 2);
  CHECK(two.tile.min_blocks == 3);
  CHECK(3 * (two.shared_bytes + 1024) <= 228 * 1024);
  CHECK(two.shared_bytes + (three.tile.bm + three.tile.bn) * 128 + 16 == three.shared_bytes);
  CHECK(two.grid_x == 132 * 3);
  CHECK(two.warp_specialized);
  CHECK(two.stage_16bit);
  // The mode's place among the others does not matter; a cap above the tile's stages changes nothing.
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p/st2+ws+s16").tile.stages == 2);
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p/ws+st8+s16").tile.stages == 3);
  // Not a stage count: ignored.
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p/ws+s16+stx").tile.stages == 3);
  // wgmma tiles that are not warp-specialised keep three: a stage's multiplies may still be reading it.
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/st2").tile.stages == 3);
  // mma.sync tiles go down to two.
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "128x64k64p/st2").tile.stages == 2);
  // One k-tile (1x1 64 -> 256) keeps its single stage (two when persistent and warp-specialised).
  auto short_k = make_plan(reference_layer(DataType::half, Layout::nhwc, 64, 56, 256, 1));
  CHECK(ConvImplicitGemmSolver::config_for(*short_k, sm90(), "wg128x64p/ws+s16+st2").tile.stages == 2);
  CHECK(ConvImplicitGemmSolver::config_for(*short_k, sm90(), "128x64k64p/st2").tile.stages == 1);
}

TEST_CASE("igemm: /bs stores the staged tile by tensor map: where it fits, its staging, the header") {
  // fp16 NHWC 1x1 128 -> 512 28x28 on the heuristic's wg128x128p (warp-specialised, 16-bit
  // staged, two stages): GEMM K 128, where the tensor-map store measured slower, so asked for only.
  auto plan = make_plan(reference_layer(DataType::half, Layout::nhwc, 128, 28, 512, 1));
  const igemm::Config plain = ConvImplicitGemmSolver::config_for(*plan, sm90());
  const igemm::Config stored = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+s16+st2+bs");
  CAPTURE(plain.describe());
  CAPTURE(stored.describe());
  CHECK_FALSE(plain.tma_store);
  REQUIRE(stored.tma_store);
  CHECK(stored.describe().find("tma:y") != std::string::npos);
  CHECK(stored.tile.name() == std::string(plain.tile.name()));
  // The staging loses its pad: BM rows of BN values, no longer BN + 8.
  CHECK(plain.shared_bytes - stored.shared_bytes == stored.tile.bm * 8 * 2);
  CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, stored), "constexpr bool TmaStore = true;"));
  CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, plain), "constexpr bool TmaStore = false;"));
  std::string why;
  const auto problem = ConvImplicitGemmSolver::problem_of(*plan, &why);
  REQUIRE(problem);
  CHECK(igemm::output_row_stride(*problem) == 512);
  // y's pixels evenly spaced rows of 16-byte multiples, wider than K: still a matrix.
  igemm::Problem padded = *problem;
  padded.y_strides = igemm::nhwc_strides(padded.n, 520, padded.p, padded.q);
  CHECK(igemm::output_row_stride(padded) == 520);
  padded.y_strides = igemm::nhwc_strides(padded.n, 516, padded.p, padded.q);  // rows of 1032 bytes
  CHECK(igemm::output_row_stride(padded) == 0);
  igemm::Problem nchw = *problem;
  nchw.y_strides = igemm::nchw_strides(nchw.n, nchw.k, nchw.p, nchw.q);
  CHECK(igemm::output_row_stride(nchw) == 0);
  igemm::Problem grouped = *problem;
  grouped.groups = 2;
  CHECK(igemm::output_row_stride(grouped) == 0);
  igemm::Problem tall = *problem;  // 2^31 pixels and more: past the copies' 32-bit row coordinate
  tall.n = (1 << 22);
  tall.y_strides = igemm::nhwc_strides(tall.n, tall.k, tall.p, tall.q);
  CHECK(igemm::output_row_stride(tall) == 0);
  // Not on tiles that do not fit it: not persistent, not warp-specialised, fp32-staged, NCHW y.
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128/ws+s16+bs").tma_store);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/s16+bs").tma_store);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+bs").tma_store);
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+s16+bs").tma_store);
  auto nchw_plan = make_plan(reference_layer(DataType::half, Layout::nchw, 128, 28, 512, 1));
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*nchw_plan, sm90(), "wg128x128p/ws+s16+bs").tma_store);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*nchw_plan, sm90(), "/bs").tma_store);
  // The heuristic's choice: 1x1 layers of GEMM K 256-1024 and N >= 256 (1x1 256->1024 14x14,
  // 512->256 28x28, 512->2048 7x7 on 64x128, 256->512 56x56 stride 2); not on 3x3 layers, K 128,
  // K 2048 nor N 128.
  struct Layer {
    int c, hw, k, r;
    bool stored;
  } layers[] = {{256, 14, 1024, 1, true}, {512, 28, 256, 1, true},  {512, 7, 2048, 1, true},
                {128, 28, 512, 1, false}, {2048, 7, 512, 1, false}, {128, 28, 128, 3, false},
                {512, 28, 128, 1, false}};
  for (const Layer& l : layers) {
    CAPTURE(l.c);
    CAPTURE(l.k);
    auto layer = make_plan(reference_layer(DataType::half, Layout::nhwc, l.c, l.hw, l.k, l.r));
    // The heuristic without its transposed GEMM (v53), which stores by tensor map wherever it applies.
    const igemm::Config chosen = ConvImplicitGemmSolver::config_for(*layer, sm90(), "/notr");
    CAPTURE(chosen.describe());
    CHECK(chosen.tma_store == l.stored);
  }
  ConvCase strided = as_1x1(reference_layer(DataType::half, Layout::nhwc, 256, 56, 512, 1));
  strided.stride = 2;
  const igemm::Config s2 = ConvImplicitGemmSolver::config_for(*make_plan(strided), sm90());
  CAPTURE(s2.describe());
  CHECK(s2.tma_store);
}

TEST_CASE("igemm: channel widths fitted to the waves, and /n<N>") {
  // At batch 64 on 132 SMs: 1x1 1024->2048 14x14 stride 2 makes 400 tiles of 128x128 (four rounds
  // for four blocks), 250 of 128x208 (two rounds), its stages still within 227 KB. Not narrower:
  // 1x1 2048->512 7x7 and 3x3 512->512 7x7 (100 tiles, a quarter of the SMs idle) keep 128.
  struct Layer {
    int c, hw, k, r, stride, width;
  } layers[] = {{1024, 14, 2048, 1, 2, 208}, {2048, 7, 512, 1, 1, 128}, {512, 7, 512, 3, 1, 128},
                // unchanged: whole waves already (1x1 1024->512 14x14: 392 tiles, 3 rounds), or
                // another tile (3x3 256->256 14x14: 192x128; 1x1 512->2048 7x7: wg64x128p)
                {1024, 14, 512, 1, 1, 128}, {256, 14, 256, 3, 1, 128}, {512, 7, 2048, 1, 1, 128}};
  for (DataType type : {DataType::half, DataType::bfloat16}) {
    for (Layout layout : {Layout::nhwc, Layout::nchw}) {
      for (const Layer& l : layers) {
        ConvCase cc = reference_layer(type, layout, l.c, l.hw, l.k, l.r);
        cc.stride = l.stride;
        if (l.r == 1) cc = as_1x1(cc);
        auto plan = make_plan(cc);
        // The heuristic without its transposed GEMM (v53), which takes three of these on NHWC.
        const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90(), "/notr");
        CAPTURE(config.describe());
        // NCHW 1x1 layers whose x is not re-laid out (copied along the pixels, or gathered): other tiles.
        if (layout == Layout::nchw && config.a_loader != igemm::Loader::async16) continue;
        CHECK(config.tile.bn == l.width);
        if (l.width != 128) {
          CHECK(config.tile.bm == 128);
          CHECK(config.tile.persistent);
          CHECK(config.warp_specialized);
          CHECK(config.tma_a);
          CHECK(config.stage_16bit);
          CHECK_FALSE(config.tma_store);  // its 64-channel boxes do not tile the width
          CHECK(config.shared_bytes + 1024 <= 228 * 1024);
          CHECK(config.tiles == (64 * 49 + 127) / 128 * ((l.k + l.width - 1) / l.width));
          CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, config),
                         "constexpr int BM = 128, BN = " + std::to_string(l.width) + ";"));
        }
      }
    }
  }
  // Forced: any multiple of 16 from 64 to 256 on a wgmma tile; other widths, and other tiles, as they were.
  auto plan = make_plan(as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)));
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+s16+n144").tile.bn == 144);
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg192x128/n96").tile.bn == 96);
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "/n80").tile.bn == 80);  // the heuristic's tile
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+n120").tile.bn == 128);
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+n272").tile.bn == 128);
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "128x64k64/n96").tile.bn == 64);
  // A width whose stages do not all fit keeps fewer: 128x256 on K 2048 (4 stages of 48 KB).
  const igemm::Config wide = ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x128p/ws+s16+n256");
  CHECK(wide.tile.stages == 3);
  CHECK(wide.shared_bytes + 1024 <= 228 * 1024);
  // Without wgmma (sm_80) nothing is fitted.
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm80()).tile.bn != 112);
}

TEST_CASE("igemm: A multicast across 2-block clusters (/mc): where it applies, its grid, its kernels") {
  const reliability::TempDir cache_dir("hipfuse-igemm-multicast-test");
  const reliability::CacheAt fresh(cache_dir.path(), false);  // every variant really compiles
  auto& compiler = rt::KernelCompiler::instance();
  struct Layer {
    DataType type;
    int c, hw, k;
    const char* tile;
  } applies[] = {
      {DataType::half, 2048, 7, 512, "/mc"},                    // the heuristic's persistent 128x128: 100 tiles
      {DataType::bfloat16, 1024, 14, 256, "wg192x128/ws+s16+mc"},  // a tile a block, 2 channel tiles
      {DataType::half, 512, 7, 2048, "wg128x128p/ws+s16+mc"},   // 400 tiles: blocks walk several
      {DataType::half, 256, 14, 1024, "wg128x128p/ws+s16+bs+mc"},  // the tensor-map store too
      {DataType::bfloat16, 200, 9, 512, "wg128x64p/ws+mc"},     // fp32 staging, K 200 (the last k-tile partial)
  };
  int compiled = 0;
  for (const Layer& l : applies) {
    ConvCase cc = as_1x1(reference_layer(l.type, Layout::nhwc, l.c, l.hw, l.k, 1));
    auto plan = make_plan(cc);
    const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90(), l.tile);
    CAPTURE(l.tile);
    CAPTURE(config.describe());
    REQUIRE(config.cluster_blocks == 2);
    CHECK(config.describe().find(" mc2") != std::string::npos);
    CHECK(config.tma_a);
    CHECK_FALSE(config.tma_a_im2col);
    CHECK(config.grid_x % 2 == 0);  // whole clusters
    CHECK(config.grid_x <= config.tiles);
    CHECK(config.tiles % 2 == 0);
    const auto request = ConvImplicitGemmSolver::request_for(*plan, config);
    CHECK(declares(request, "constexpr int ClusterBlocks = 2;"));
    CHECK(declares(request, "#define HF_IGEMM_CLUSTER_DIMS HF_CLUSTER_DIMS(2)"));
    std::vector<char> code;
    CHECK_NOTHROW(code = compiler.binary(request, "sm_90", 32));
    CHECK(!code.empty());
    ++compiled;
  }
  CHECK(compiled == 5);
  // Not where A's k-tile is not one 2-D box shared by the pair: an odd number of channel tiles
  // (384 over 128), an im2col map (3x3), NCHW x gathered, no warp specialisation, stream-K;
  // and not by the heuristic past one k-tile (its compute-bound and wide memory-bound picks).
  struct Refused {
    ConvCase cc;
    const char* tile;
  } refused[] = {
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 384, 1)), "wg128x128p/ws+s16+mc"},
      {reference_layer(DataType::half, Layout::nhwc, 256, 14, 256, 3), "wg128x128p/ws+im2col+s16+mc"},
      {as_1x1(reference_layer(DataType::half, Layout::nchw, 1024, 14, 256, 1)), "wg128x128p/ws+mc"},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), "wg128x128p/mc"},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), "wg128x128/sk+mc"},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), ""},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 128, 28, 512, 1)), ""},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 256, 56, 128, 1)), ""},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 1)), ""},   // one channel tile
      {as_1x1(reference_layer(DataType::half, Layout::nchw, 64, 56, 256, 1)), ""},  // A along the pixels
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 64, 56, 256, 1)), "/nomc"},
  };
  for (const Refused& r : refused) {
    const igemm::Config config = ConvImplicitGemmSolver::config_for(*make_plan(r.cc), sm90(), r.tile);
    CAPTURE(r.tile);
    CAPTURE(config.describe());
    CHECK(config.cluster_blocks == 1);
    CHECK(declares(ConvImplicitGemmSolver::request_for(*make_plan(r.cc), config), "#define HF_IGEMM_CLUSTER_DIMS\n"));
  }
  // The heuristic's own: the memory-bound 1x1 layers of one k-tile (GEMM K 64) whose channel
  // tiles pair up, CBA and CBNA, fp16 and bf16 (1x1 64->256 56x56: 0.92-0.94x, H100).
  for (DataType type : {DataType::half, DataType::bfloat16}) {
    for (Chain chain : {Chain::bias_relu, Chain::bias_bn_relu}) {
      auto plan = make_plan(as_1x1(reference_layer(type, Layout::nhwc, 64, 56, 256, 1)), chain);
      const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90());
      CAPTURE(config.describe());
      CHECK(config.cluster_blocks == 2);
      CHECK(config.tile.name() == std::string("wg128x64p"));
      CHECK(config.grid_x % 2 == 0);
      CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, config), "#define HF_IGEMM_CLUSTER_DIMS HF_CLUSTER_DIMS(2)"));
    }
  }
}

TEST_CASE("igemm: the transposed GEMM (/tr): where it applies, its fitted pixel width, tiles, maps, kernels") {
  const reliability::TempDir cache_dir("hipfuse-igemm-transposed-test");
  const reliability::CacheAt fresh(cache_dir.path(), false);  // every variant really compiles
  auto& compiler = rt::KernelCompiler::instance();
  // At batch 64 on 132 SMs the fitted width fills the multiprocessors in whole waves: 1x1
  // 2048->512 7x7 as 4 channel tiles x 33 of 96 pixels (3136 pixels), 1024->256 14x14 as 2 x 66
  // of 192, 512->2048 7x7 as 16 x 16 of 208 (two waves of 128 tiles).
  struct Layer {
    DataType type;
    int c, hw, k;
    const char* tile;
    int channels, pixels;
    std::int64_t tiles;
  } applies[] = {
      {DataType::half, 2048, 7, 512, "/tr", 128, 96, 4 * 33},
      {DataType::bfloat16, 1024, 14, 256, "/tr", 128, 192, 2 * 66},
      {DataType::half, 512, 7, 2048, "/tr", 128, 208, 16 * 16},
      {DataType::half, 2048, 7, 512, "wg128x128p/tr+n64", 128, 64, 4 * 49},       // forced width
      {DataType::bfloat16, 256, 14, 1024, "wg64x128p/tr+n96", 64, 96, 16 * 131},  // one warpgroup
      {DataType::half, 2048, 7, 512, "wg192x128p/tr+n112", 192, 112, 3 * 28},     // three; N off the tile
  };
  int compiled = 0;
  for (const Layer& l : applies) {
    auto plan = make_plan(as_1x1(reference_layer(l.type, Layout::nhwc, l.c, l.hw, l.k, 1)), Chain::bias_bn_relu);
    const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90(), l.tile);
    CAPTURE(l.tile);
    CAPTURE(config.describe());
    REQUIRE(config.transposed);
    CHECK(config.describe().find(" transposed") != std::string::npos);
    CHECK(config.tile.bm == l.channels);
    CHECK(config.tile.bn == l.pixels);
    CHECK(config.tiles == l.tiles);
    CHECK(config.tile.persistent);
    CHECK(config.warp_specialized);
    CHECK((config.tma_a && config.tma_b && config.tma_store && config.stage_16bit));
    CHECK_FALSE(config.tma_a_im2col);
    CHECK(config.cluster_blocks == 1);
    CHECK(config.grid_x <= config.tiles);
    CHECK(config.shared_bytes + 1024 <= 228 * 1024);
    const auto request = ConvImplicitGemmSolver::request_for(*plan, config);
    CHECK(declares(request, "constexpr bool Transposed = true;"));
    CHECK(declares(request,
                   "constexpr int BM = " + std::to_string(l.channels) + ", BN = " + std::to_string(l.pixels) + ";"));
    std::vector<char> code;
    CHECK_NOTHROW(code = compiler.binary(request, "sm_90", 32));
    CHECK(!code.empty());
    ++compiled;
  }
  // Past 1x1 stride-1 layers x's windows come by the im2col map, a box of BN pixels a filter tap
  // (3x3 128->128 56x56 stride 2, 3x3 512->512 7x7, a strided 1x1); NCHW x by the maps once
  // re-laid out, y then stored in vectors along the pixels from [channels][pixels + 8] staging
  // (1x1 2048->512 7x7, 3x3 256->256 14x14); 2 groups, y channels-last in vectors from
  // [pixels][channels + 8] staging (no tensor-map store: one group only).
  ConvCase strided = as_1x1(reference_layer(DataType::half, Layout::nhwc, 1024, 14, 2048, 1));
  strided.stride = 2;
  ConvCase s2 = reference_layer(DataType::bfloat16, Layout::nhwc, 128, 56, 128, 3);
  s2.stride = 2;
  ConvCase grouped = as_1x1(reference_layer(DataType::half, Layout::nhwc, 256, 14, 256, 1));
  grouped.groups = 2;
  struct Other {
    ConvCase cc;
    bool im2col, tensor_store;
  } others[] = {
      {s2, true, true},
      {reference_layer(DataType::half, Layout::nhwc, 512, 7, 512, 3), true, true},
      {strided, true, true},
      {as_1x1(reference_layer(DataType::half, Layout::nchw, 2048, 7, 512, 1)), false, false},
      {reference_layer(DataType::bfloat16, Layout::nchw, 256, 14, 256, 3), true, false},
      {grouped, false, false},
  };
  for (const Other& o : others) {
    const ConvCase& cc = o.cc;
    auto plan = make_plan(cc, Chain::bias_bn_relu);
    const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90(), "/tr");
    CAPTURE(config.describe());
    REQUIRE(config.transposed);
    CHECK(config.tma_a_im2col == o.im2col);
    CHECK(config.tma_store == o.tensor_store);
    CHECK(config.out_along_k == (cc.layout == Layout::nhwc));
    CHECK(config.tile.bm == 128);
    CHECK(config.shared_bytes + 1024 <= 228 * 1024);
    const std::int64_t pixels = std::int64_t{cc.n} * ((cc.h - 1) / cc.stride + 1) * ((cc.w - 1) / cc.stride + 1);
    CHECK(config.tiles == (pixels + config.tile.bn - 1) / config.tile.bn * ((cc.k / cc.groups + 127) / 128));
    std::vector<char> code;
    CHECK_NOTHROW(code = compiler.binary(ConvImplicitGemmSolver::request_for(*plan, config), "sm_90", 32));
    CHECK(!code.empty());
    ++compiled;
  }
  CHECK(compiled == 12);
  // One block a multiprocessor with as many stages as fit (7 of 28 KB beside the 24 KB staging on
  // 2048->512 7x7), or as "/st<N>" caps them.
  auto deep = make_plan(as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)));
  CHECK(ConvImplicitGemmSolver::config_for(*deep, sm90(), "/tr").tile.stages == 7);
  CHECK(ConvImplicitGemmSolver::config_for(*deep, sm90(), "/tr+st4").tile.stages == 4);
  CHECK(ConvImplicitGemmSolver::config_for(*deep, sm90(), "/tr+st4").tile.bn == 96);
  CHECK(ConvImplicitGemmSolver::config_for(*deep, sm90(), "/tr+n128").tile.bn == 128);  // a forced width
  // A group of at most 64 output channels takes one warpgroup's 64 (3x3 64->64 56x56: 64 x 256).
  const igemm::Config narrow = ConvImplicitGemmSolver::config_for(
      *make_plan(reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 3)), sm90(), "/tr");
  CHECK(narrow.transposed);
  CHECK(narrow.tile.bm == 64);
  CHECK(narrow.tile.bn == 256);
  // Not where x or the weights cannot go by tensor maps (NCHW 1x1 64->256 56x56, x copied along
  // its pixels), nor in fp32; nor on a tile that is not a persistent wgmma one, nor without wgmma;
  // nor by the heuristic where it was not faster. The tile is then as it would be without "/tr".
  struct Refused {
    ConvCase cc;
    const char* tile;
    Target arch;
  };
  const Refused refused[] = {
      {as_1x1(reference_layer(DataType::half, Layout::nchw, 64, 56, 256, 1)), "/tr", sm90()},
      {as_1x1(reference_layer(DataType::float32, Layout::nhwc, 2048, 7, 512, 1)), "/tr", sm90()},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), "wg192x128/tr", sm90()},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), "128x64k64p/tr", sm90()},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), "/tr", sm80()},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), "", sm90()},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 1024, 14, 256, 1)), "", sm90()},
  };
  for (const Refused& r : refused) {
    auto plan = make_plan(r.cc);
    const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, r.arch, r.tile);
    CAPTURE(r.tile);
    CAPTURE(config.describe());
    CHECK_FALSE(config.transposed);
    // The tile is the one the plan gets without "/tr" (where the tile is forced, that tile or the heuristic's).
    if (std::string(r.tile) == "/tr") {
      CHECK(config.describe() == ConvImplicitGemmSolver::config_for(*plan, r.arch).describe());
      CHECK(ConvImplicitGemmSolver::config_for(*plan, r.arch, "/tr+st2").describe() ==
            ConvImplicitGemmSolver::config_for(*plan, r.arch, "/st2").describe());
    }
    CHECK(declares(ConvImplicitGemmSolver::request_for(*plan, config), "constexpr bool Transposed = false;"));
  }
}

// The heuristic takes the transposed GEMM where it measured faster (docs/PERF_NOTES.md v52/v53):
// fp16 / bf16, one group, channels-last x, no prologue, at least a wave of 128x128 outputs; 1x1
// with C and K of 512 or more, wider filters with C and K of 128 or less. The plan is then the
// forced "/tr"'s, on four stages at most where x comes by im2col map ("/tr+st4"'s).
TEST_CASE("igemm: the heuristic takes the transposed GEMM on the layers where it measured faster") {
  ConvCase s2 = reference_layer(DataType::bfloat16, Layout::nhwc, 128, 56, 128, 3);
  s2.stride = 2;
  ConvCase down = as_1x1(reference_layer(DataType::half, Layout::nhwc, 1024, 14, 2048, 1));
  down.stride = 2;
  const ConvCase taken[] = {
      reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 3),
      s2,
      reference_layer(DataType::half, Layout::nhwc, 128, 28, 128, 3),
      as_1x1(reference_layer(DataType::half, Layout::nhwc, 1024, 14, 512, 1)),
      as_1x1(reference_layer(DataType::bfloat16, Layout::nhwc, 512, 7, 2048, 1)),
      down,
  };
  for (const ConvCase& cc : taken) {
    for (Chain chain : {Chain::bias_relu, Chain::bias_bn_relu}) {
      auto plan = make_plan(cc, chain);
      const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90());
      CAPTURE(config.describe());
      CHECK(config.transposed);
      const bool im2col = cc.r > 1 || cc.stride > 1;
      CHECK(config.tma_a_im2col == im2col);
      CHECK(config.describe() == ConvImplicitGemmSolver::config_for(*plan, sm90(), im2col ? "/tr+st4" : "/tr").describe());
    }
  }
  // Left: where the heuristic's tile already fills the waves with wider operands (1x1 1024->256
  // and 256->1024 14x14), 3x3 512->512 7x7 and 2048->512 7x7 (less than a wave of 128x128
  // outputs; so too 3x3 64->64 at batch 4), NCHW x, fp32, no wgmma (sm_80), 2 groups, a prologue.
  ConvCase small = reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 3);
  small.n = 4;
  ConvCase grouped = reference_layer(DataType::half, Layout::nhwc, 128, 28, 128, 3);
  grouped.groups = 2;
  struct Left {
    ConvCase cc;
    Chain chain;
    Target arch;
  };
  const Left left[] = {
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 1024, 14, 256, 1)), Chain::bias_relu, sm90()},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 256, 14, 1024, 1)), Chain::bias_relu, sm90()},
      {reference_layer(DataType::half, Layout::nhwc, 512, 7, 512, 3), Chain::bias_relu, sm90()},
      {as_1x1(reference_layer(DataType::half, Layout::nhwc, 2048, 7, 512, 1)), Chain::bias_relu, sm90()},
      {small, Chain::bias_relu, sm90()},
      {reference_layer(DataType::half, Layout::nchw, 64, 56, 64, 3), Chain::bias_relu, sm90()},
      {as_1x1(reference_layer(DataType::bfloat16, Layout::nchw, 512, 7, 2048, 1)), Chain::bias_relu, sm90()},
      {reference_layer(DataType::float32, Layout::nhwc, 64, 56, 64, 3), Chain::bias_relu, sm90()},
      {reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 3), Chain::bias_relu, sm80()},
      {grouped, Chain::bias_relu, sm90()},
      {reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 3), Chain::prologue_bn_relu, sm90()},
  };
  for (const Left& l : left) {
    const igemm::Config config = ConvImplicitGemmSolver::config_for(*make_plan(l.cc, l.chain), l.arch);
    CAPTURE(config.describe());
    CHECK_FALSE(config.transposed);
  }
  // A forced tile or mode keeps the heuristic's pick out; "/notr" gives the plan it made before.
  auto plan = make_plan(reference_layer(DataType::half, Layout::nhwc, 64, 56, 64, 3));
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "wg128x64p").transposed);
  CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm90(), "/st3").transposed);
  const igemm::Config before = ConvImplicitGemmSolver::config_for(*plan, sm90(), "/notr");
  CHECK_FALSE(before.transposed);
  CHECK(std::string(before.tile.name()) == "wg128x64p");
  CHECK(ConvImplicitGemmSolver::config_for(*plan, sm90(), "/st3+notr").describe() ==
        ConvImplicitGemmSolver::config_for(*plan, sm90(), "/st3").describe());
}

// Not part of the regular suite: writes the generated headers (hf_plan.h, hf_igemm.h) of every
// matrix tile on the reference layers (fp16 / bf16, NHWC / NCHW, conv + bias + ReLU) under
// $HIPFUSE_IGEMM_HEADER_DIR/<type>-<layout>-<layer>-<tile>/, for `nvcc -cubin -Xptxas -v`
// (scripts/igemm_ptxas.sh).
TEST_CASE("igemm: write the generated headers of the reference layers" * doctest::skip()) {
  const char* dir_env = std::getenv("HIPFUSE_IGEMM_HEADER_DIR");
  REQUIRE(dir_env != nullptr);
  const std::filesystem::path root(dir_env);
  const char* tiles[] = {"128x128",    "128x128w8",    "256x64",    "128x64",    "64x64",      "128x32",
                         "128x128k64", "128x128w8k64", "256x64k64", "128x64k64", "128x64w8k64", "128x64k64p",
                         "wg128x128",  "wg128x64",     "wg64x128",  "wg128x256", "wg256x128", "wg192x128",
                         "wg64x128p",  "wg128x64p",    "wg128x128p", "wg128x256p", "64x64k64p",
                         // warp-specialised (a loader warpgroup): where the loaders are all cp.async
                         "wg128x128/ws", "wg128x64/ws", "wg64x128/ws", "wg128x256/ws", "wg256x128/ws",
                         "wg192x128/ws",
                         // 16-bit epilogue staging: where y is 16-bit along channels
                         "128x64k64p/s16", "64x64k64p/s16", "wg128x128p/s16", "wg128x128/ws+s16", "wg192x128/ws+s16",
                         // persistent and warp-specialised
                         "wg128x128p/ws", "wg128x128p/ws+s16", "wg128x64p/ws+s16", "wg64x128p/ws+s16",
                         // A by im2col tensor map (3x3 layers)
                         "wg192x128/ws+im2col+s16", "wg128x128/ws+im2col+s16", "wg128x64p/ws+im2col+s16",
                         "wg128x128p/ws+im2col+s16",
                         // persistent 128x256 past one k-tile: three stages with 16-bit staging
                         "wg128x256p/ws+s16",
                         // persistent 192x128 (three warpgroups): 1x1 by tensor maps, 3x3 by im2col
                         "wg192x128p/ws+s16", "wg192x128p/ws+im2col+s16",
                         // the staged tile stored by tensor map
                         "wg128x128p/ws+s16+bs", "wg128x64p/ws+s16+bs", "wg128x128p/ws+im2col+s16+bs",
                         // channel widths fitted to the waves (1x1 and 3x3 layers of 7x7 outputs)
                         "wg128x128p/ws+s16+n112", "wg128x128p/ws+im2col+s16+n112", "wg128x128p/ws+s16+n208",
                         "wg128x128p/ws+im2col+s16+n208",
                         // the transposed GEMM, its pixel width fitted (1x1 by tensor maps, 3x3 by im2col)
                         "wg128x128p/ws+s16+tr", "wg128x128p/ws+im2col+s16+tr", "wg64x128p/ws+s16+tr",
                         "wg64x128p/ws+im2col+s16+tr"};
  // 1x1 256->128: a memory-bound layer of several k-tiles; 1x1 1024->256 14x14: NCHW's A
  // copied 4 pixels at a time (H*W = 196); 1x1 2048->512 7x7: NCHW's A gathered (H*W = 49).
  struct Layer {
    const char* name;
    int c, hw, k, r;
  } layers[] = {{"1x1-64-256", 64, 56, 256, 1},     {"3x3-64-64", 64, 56, 64, 3},
                {"3x3-256-256", 256, 14, 256, 3},   {"1x1-256-128", 256, 56, 128, 1},
                {"1x1-1024-256", 1024, 14, 256, 1}, {"1x1-2048-512", 2048, 7, 512, 1}};
  int written = 0;
  for (DataType t : {DataType::half, DataType::bfloat16}) {
    for (Layout layout : {Layout::nhwc, Layout::nchw}) {
      for (const Layer& l : layers) {
        for (Chain chain : {Chain::bias_relu, Chain::bias_bn_relu}) {  // CBA, and CBNA on the 16-bit staged tiles
          auto plan = make_plan(reference_layer(t, layout, l.c, l.hw, l.k, l.r), chain);
          for (const char* tile : tiles) {
            if (chain == Chain::bias_bn_relu && std::string(tile).find("s16") == std::string::npos) continue;
            const igemm::Config config = ConvImplicitGemmSolver::config_for(*plan, sm90(), tile);
            const std::string name(tile), tile_name = name.substr(0, name.find('/'));
            const std::size_t width_mode = name.find("+n");
            const bool fits = width_mode == std::string::npos
                                  ? config.tile.name() == tile_name
                                  : config.tile.bn == std::stoi(name.substr(width_mode + 2));
            if (!fits) continue;  // does not fit (wg128x256p past one k-tile)
            if ((name.find("/ws") != std::string::npos) != config.warp_specialized) continue;  // a gathered loader
            if ((name.find("s16") != std::string::npos) != config.stage_16bit) continue;  // y along the pixels
            if ((name.find("im2col") != std::string::npos) != config.tma_a_im2col) continue;  // a 1x1's plain map
            if ((name.find("+tr") != std::string::npos) != config.transposed) continue;
            const rt::KernelRequest r = ConvImplicitGemmSolver::request_for(*plan, config);
            std::string set = std::string(name_of(t)) + "-" + (layout == Layout::nhwc ? "nhwc" : "nchw") + "-" + l.name +
                              "-" + (chain == Chain::bias_bn_relu ? "cbna-" : "") + name;
            std::replace(set.begin(), set.end(), '/', '-');
            const auto dir = root / set;
            std::filesystem::create_directories(dir);
            for (const auto& h : r.generated_headers) std::ofstream(dir / h.path) << h.text;
            ++written;
          }
        }
      }
    }
  }
  MESSAGE(written << " header sets written under " << root.string());
}

TEST_CASE("igemm: warpgroup (wgmma) tiles: sm_90 only, fp16/bf16, stages, aligned shared memory, sm_90a code") {
  struct Expect {
    const char* tile;
    int threads, stages_3x3;
  } expect[] = {
      {"wg128x128", 256, 6}, {"wg128x64", 128, 4}, {"wg64x128", 128, 4}, {"wg128x256", 256, 4}, {"wg256x128", 256, 4},
      {"wg192x128", 384, 5},
  };
  ConvCase cc;  // 3x3 64 -> 64: GEMM K 576, 9 k-tiles of 64
  cc.n = 64;
  cc.h = cc.w = 56;
  for (const Expect& e : expect) {
    CAPTURE(e.tile);
    for (DataType t : {DataType::half, DataType::bfloat16}) {
      cc.type = t;
      const igemm::Config c = ConvImplicitGemmSolver::config_for(*make_plan(cc), sm90(), e.tile);
      CHECK(std::string(c.tile.name()) == e.tile);
      CHECK(c.tile.warpgroup);
      CHECK(c.tile.k_chunks == 8);
      CHECK(c.tile.warps_n == 1);
      CHECK(c.threads == e.threads);
      CHECK(c.threads % 128 == 0);
      CHECK(c.tile.bm % (64 * (c.threads / 128)) == 0);  // 64-row slices per warpgroup
      CHECK(c.tile.stages == e.stages_3x3);
      const int pipe = c.tile.stages * (c.tile.bm + c.tile.bn) * 128;
      CHECK(c.shared_bytes == std::max(pipe, c.tile.bm * (c.tile.bn + 8) * 4) + 1024);  // + alignment slack
      CHECK(c.shared_bytes <= 227 * 1024);
      CHECK(c.describe().find(" wgmma") != std::string::npos);
      const rt::KernelRequest r = ConvImplicitGemmSolver::request_for(*make_plan(cc), c);
      CHECK(r.arch_specific);
      bool sm90a = false;
      for (const auto& o : rt::KernelCompiler::instance().options_for(r, "sm_90", 32)) {
        sm90a = sm90a || o == "--gpu-architecture=sm_90a";
      }
      CHECK(sm90a);
      bool header_says = false;
      for (const auto& h : r.generated_headers) {
        header_says = header_says || h.text.find("constexpr bool Warpgroup = true;") != std::string::npos;
      }
      CHECK(header_says);
      // Elsewhere the name is not one of the tiles: the heuristic's choice, without wgmma.
      const igemm::Config c80 = ConvImplicitGemmSolver::config_for(*make_plan(cc), sm80(), e.tile);
      CHECK_FALSE(c80.tile.warpgroup);
      CHECK_FALSE(ConvImplicitGemmSolver::request_for(*make_plan(cc), c80).arch_specific);
    }
    // fp32 (also as tf32) stays on its own kernels.
    ConvCase f = cc;
    f.type = DataType::float32;
    CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(f), sm90(), e.tile).tile.warpgroup);
    f.tf32 = true;
    CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(f), sm90(), e.tile).tile.warpgroup);
  }
  SUBCASE("the automatic choice on sm_90: wgmma for compute-bound fp16/bf16 layers of >= 128 channels") {
    // ResNet-50 layers at batch 64 and the tile the H200 sweeps measured fastest (NHWC, v6, v8
    // and, 3x3 with A by an im2col map, v15).
    struct Layer {
      int c, hw, k, r;
      const char* tile;
    } layers[] = {
        // 14x14 (M = 12544): 132 tiles of 192x128 where 128x256 makes 98 (one partly empty wave)
        {256, 14, 256, 3, "wg192x128"}, {1024, 14, 256, 1, "wg192x128"},
        // 3x3 in 28x28 and 7x7: the persistent warp-specialised 128x128 (its loads run on into
        // the next tile while this one is stored)
        {128, 28, 128, 3, "wg128x128p"}, {512, 7, 512, 3, "wg128x128p"},
        // compute-bound 1x1 (A by a pixels x channels map): the persistent tiles too (v17 sweep)
        {1024, 14, 512, 1, "wg128x128p"}, {2048, 7, 512, 1, "wg128x128p"}, {512, 28, 256, 1, "wg128x128p"},
        {256, 14, 1024, 1, "wg128x128p"},
        // ... transposed (v53) on 3x3 128->128 28x28, 1x1 1024->512 14x14 and 512->2048 7x7 (the
        // last wg64x128p before: "/notr")
        {512, 7, 2048, 1, "wg128x128p"},
    };
    for (DataType t : {DataType::half, DataType::bfloat16}) {
      for (const Layer& l : layers) {
        CAPTURE(l.c);
        CAPTURE(l.k);
        auto plan = make_plan(reference_layer(t, Layout::nhwc, l.c, l.hw, l.k, l.r));
        const igemm::Config c = ConvImplicitGemmSolver::config_for(*plan, sm90());
        CHECK(std::string(c.tile.name()) == l.tile);
        // Warp-specialised with tensor-map copies where the v12 sweep measured it faster: not
        // 128x256 on channels-last A; A by a pixels x channels map on the 1x1 layers, by an
        // im2col one on the 3x3 layers (v15).
        CHECK(c.warp_specialized);
        CHECK(c.tma_b);
        CHECK(c.tma_a);
        CHECK(c.tma_a_im2col == (l.r == 3));
        CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm80()).tile.warpgroup);
        CHECK_FALSE(ConvImplicitGemmSolver::config_for(*plan, sm80()).warp_specialized);
        auto nchw = make_plan(reference_layer(t, Layout::nchw, l.c, l.hw, l.k, l.r));
        const igemm::Config cn = ConvImplicitGemmSolver::config_for(*nchw, sm90());
        CHECK(cn.tile.warpgroup);
        // NCHW 1x1 along the pixels: 128x256, warp-specialised (the weights by map).
        if (cn.a_loader == igemm::Loader::pixels) {
          CHECK(std::string(cn.tile.name()) == "wg128x256");
          CHECK(cn.warp_specialized);
          CHECK(cn.tma_b);
        }
      }
      // Memory-bound 1x1 layers (85 FLOP per byte of least traffic): not the compute-bound
      // wgmma tiles; channels-last, the persistent warp-specialised one, 16-bit staged.
      auto mem = make_plan(reference_layer(t, Layout::nhwc, 256, 56, 128, 1));
      CHECK(std::string(ConvImplicitGemmSolver::config_for(*mem, sm90()).tile.name()) == "wg128x64p");
      CHECK(ConvImplicitGemmSolver::config_for(*mem, sm90()).stage_16bit);
      CHECK(ConvImplicitGemmSolver::config_for(*mem, sm90()).warp_specialized);
      // NCHW (A along the pixels, GEMM K 128-512, N >= 128): wg128x128p, warp-specialised (v24).
      auto mem_nchw = make_plan(reference_layer(t, Layout::nchw, 256, 56, 128, 1));
      CHECK(std::string(ConvImplicitGemmSolver::config_for(*mem_nchw, sm90()).tile.name()) == "wg128x128p");
      CHECK(ConvImplicitGemmSolver::config_for(*mem_nchw, sm90()).warp_specialized);
      CHECK(ConvImplicitGemmSolver::config_for(*mem_nchw, sm90()).stage_16bit);
      // 3x3 64 -> 64: the persistent warp-specialised 128x64, A by an im2col map (v15; before the
      // map, A's L2 traffic kept wgmma behind mma.sync there), transposed as 64 channels x 256
      // pixels since v53 ("/notr": 128x64); not without the map (C = 56).
      ConvCase narrow = cc;
      narrow.type = t;
      const igemm::Config nc = ConvImplicitGemmSolver::config_for(*make_plan(narrow), sm90());
      CHECK(std::string(nc.tile.name()) == "wg64x128p");
      CHECK(nc.transposed);
      CHECK(std::string(ConvImplicitGemmSolver::config_for(*make_plan(narrow), sm90(), "/notr").tile.name()) ==
            "wg128x64p");
      CHECK(nc.tma_a_im2col);
      CHECK(nc.warp_specialized);
      narrow.c = 56;
      CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(narrow), sm90()).tile.warpgroup);
      // The memory-bound 1x1 layers (sweeps v9, v14): channels-last (x and weights by tensor map,
      // 16-bit staged), the persistent warp-specialised wgmma tile; stride 2 (A not a matrix of
      // rows), the earlier choice; NCHW with one k-tile copied along the pixels, the
      // persistent mma.sync tile; two (K 128) with N >= 128, wg128x128p warp-specialised (v24);
      // on sm_80, 128x64; a gathered A (NCHW, H*W not a multiple
      // of 4) with N >= 128, the persistent wgmma tile; N 64, 128x64; without wgmma, 128x64.
      auto tile_of = [&](Layout lay, int c, int hw, int k, const Target& target) {
        return std::string(
            ConvImplicitGemmSolver::config_for(*make_plan(reference_layer(t, lay, c, hw, k, 1)), target).tile.name());
      };
      CHECK(tile_of(Layout::nhwc, 64, 56, 256, sm90()) == "wg128x64p");
      CHECK(tile_of(Layout::nhwc, 128, 28, 512, sm90()) == "wg128x128p");  // N 512: two stages, two blocks (v39)
      CHECK(tile_of(Layout::nhwc, 64, 28, 512, sm90()) == "wg128x64p");    // ... but GEMM K 64: not measured
      CHECK(tile_of(Layout::nhwc, 512, 28, 128, sm90()) == "wg128x64p");   // GEMM K 512
      CHECK(tile_of(Layout::nhwc, 64, 56, 64, sm90()) == "wg128x64p");     // N 64
      CHECK(tile_of(Layout::nhwc, 1024, 14, 256, sm90()) == "wg192x128");  // K 1024: compute-bound
      ConvCase strided = cc;  // 1x1 stride 2: A not a matrix of evenly spaced rows
      strided.type = t;
      strided.c = 256;
      strided.h = strided.w = 56;
      strided.k = 512;
      strided = as_1x1(strided);
      strided.stride = 2;
      CHECK(std::string(ConvImplicitGemmSolver::config_for(*make_plan(strided), sm90()).tile.name()) != "wg128x64p");
      CHECK(tile_of(Layout::nhwc, 64, 56, 256, sm80()) == "128x64k64p");
      CHECK(tile_of(Layout::nchw, 64, 56, 256, sm90()) == "wg128x128p");  // A along the pixels, K 64, N >= 128
      CHECK(tile_of(Layout::nchw, 64, 56, 64, sm90()) == "128x64k64p");   // ... N 64
      CHECK(tile_of(Layout::nchw, 128, 28, 512, sm90()) == "wg128x128p");
      CHECK(tile_of(Layout::nchw, 256, 56, 64, sm90()) == "128x64k64");  // K 256, N 64: mma.sync (v24)
      CHECK(tile_of(Layout::nchw, 64, 57, 256, sm90()) == "wg128x128p");
      CHECK(tile_of(Layout::nchw, 64, 57, 64, sm90()) == "128x64");
      CHECK(tile_of(Layout::nchw, 128, 28, 512, sm80()) == "128x64");
      // A prologue on odd channels (the heaviest register-staged A): mma.sync's small tile.
      ConvCase odd = cc;
      odd.type = t;
      odd.c = 17;
      odd.k = 128;
      CHECK_FALSE(ConvImplicitGemmSolver::config_for(*make_plan(odd, Chain::prologue_bn_relu), sm90()).tile.warpgroup);
      // A prologue on a 3x3: x re-laid out with it applied, then any wgmma tile; on a 1x1 (the
      // register path) only those of at most 128 x 128.
      ConvCase pro = cc;
      pro.type = t;
      pro.k = 128;
      const igemm::Config cp = ConvImplicitGemmSolver::config_for(*make_plan(pro, Chain::prologue_bn_relu), sm90());
      CHECK(cp.tile.warpgroup);
      CHECK(cp.pack_input);
      ConvCase pro1 = pro;
      pro1.c = 1024;
      pro1.k = 256;
      pro1 = as_1x1(pro1);
      const igemm::Config c1 = ConvImplicitGemmSolver::config_for(*make_plan(pro1, Chain::prologue_bn_relu), sm90());
      CHECK(c1.tile.warpgroup);
      CHECK(c1.a_loader == igemm::Loader::gather);
      CHECK(c1.tile.bm * c1.tile.bn <= 128 * 128);
    }
  }
  SUBCASE("one k-tile: one stage; two k-tiles: all in flight") {
    ConvCase one = cc;  // GEMM K 64
    one = as_1x1(one);
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(one), sm90(), "wg128x128").tile.stages == 1);
    ConvCase two = one;  // GEMM K 128: 2 k-tiles, lookahead of stages - 2 = 2
    two.c = 128;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(two), sm90(), "wg128x128").tile.stages == 4);
    ConvCase three = one;  // GEMM K 192: 3 k-tiles, all in flight with 5 of wg128x128's 6 stages
    three.c = 192;
    CHECK(ConvImplicitGemmSolver::config_for(*make_plan(three), sm90(), "wg128x128").tile.stages == 5);
  }
}
