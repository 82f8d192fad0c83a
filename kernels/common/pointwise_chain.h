// The pointwise-op chain shared by every kernel family: a compile-time list of steps that
// transforms one fp32 value where it lives (its coordinates and offset in the tensor being
// produced). Conv prologues and epilogues, the pointwise kernel and the BN training
// epilogue all use it; a future implicit-GEMM kernel calls Chain::apply the same way.
//
// The plan header instantiates it, e.g.
//   using Epilogue = hf::Chain<hf::BiasStep<0, hf::half>,
//                              hf::BnInferenceStep<1, float, true, YGeom>,
//                              hf::ActivationStep<2, hf::ActMode::relu>>;
// where the first template argument of each step is its slot in ChainArgs (kernel_args.h).
#pragma once

#include "common/activation.h"
#include "common/geometry.h"
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/vendor.h"

namespace hf {

// y = v + bias[c]; T is the bias tensor's type.
template <int Slot, class T>
struct BiasStep {
  static HF_DEVICE float apply(float v, const Coord& at, index_t, const ChainArgs& args) {
    return v + load_float<T>(args.step[Slot].ptr[0], at.c);
  }
};

// y = scale * (v - mean) / sqrt(var + eps) + bias, parameters of type P per channel
// (Spatial) or per (channel, spatial position) of the tensor described by Site.
template <int Slot, class P, bool Spatial, class Site>
struct BnInferenceStep {
  static HF_DEVICE float apply(float v, const Coord& at, index_t, const ChainArgs& args) {
    const StepArgs& a = args.step[Slot];
    const index_t i = Spatial ? at.c : at.c * Site::spatial + Site::spatial_index(at);
    const float scale = load_float<P>(a.ptr[0], i), bias = load_float<P>(a.ptr[1], i);
    const float mean = load_float<P>(a.ptr[2], i), var = load_float<P>(a.ptr[3], i);
    return scale * (v - mean) * rsqrtf(var + a.scalar[0]) + bias;
  }
};

template <int Slot, ActMode M>
struct ActivationStep {
  static HF_DEVICE float apply(float v, const Coord&, index_t, const ChainArgs& args) {
    const StepArgs& a = args.step[Slot];
    return activation_forward<M>(v, a.scalar[0], a.scalar[1], a.scalar[2]);
  }
};

// y = v + alpha * z; z of type T laid out as Z. When Z addresses like the tensor being
// produced (Site), the value's own offset is z's offset too.
template <int Slot, class T, class Z, class Site>
struct ResidualAddStep {
  static HF_DEVICE float apply(float v, const Coord& at, index_t offset, const ChainArgs& args) {
    const StepArgs& a = args.step[Slot];
    const index_t z_offset = same_addressing<Z, Site> ? offset : Z::offset(at);
    return v + a.scalar[0] * load_float<T>(a.ptr[0], z_offset);
  }
};

// The steps applied in plan order.
template <class... Steps>
struct Chain {
  static constexpr int length = sizeof...(Steps);
  static_assert(length <= kMaxChainSteps, "chain longer than ChainArgs holds");

  static HF_DEVICE float apply(float v, const Coord& at, index_t offset, const ChainArgs& args) {
    ((v = Steps::apply(v, at, offset, args)), ...);
    return v;
  }
};

}  // namespace hf
