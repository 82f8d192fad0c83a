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
//
// Per-channel state: Chain::prepare(c) loads and folds what a step needs for channel c once
// (bias; BN inference as scale' = scale * rsqrt(var + eps), shift' = bias - mean * scale'), and
// Chain::apply(v, state, ...) then costs a few instructions per element. Kernels call
// prepare once per distinct channel a thread touches; apply(v, at, ...) without a state
// prepares at.c itself (one element per channel: no saving, same results).
#pragma once

#include "common/activation.h"
#include "common/geometry.h"
#include "common/kernel_args.h"
#include "common/memory.h"
#include "common/vendor.h"

namespace hf {

// Steps without per-channel state.
struct NoChannelState {};

// The two type traits needed here (device code has no <type_traits> under every runtime compiler).
template <bool B, class A, class Z>
struct conditional {
  using type = A;
};
template <class A, class Z>
struct conditional<false, A, Z> {
  using type = Z;
};
template <class A, class B>
struct is_same {
  static constexpr bool value = false;
};
template <class A>
struct is_same<A, A> {
  static constexpr bool value = true;
};

// y = v + bias[c]; T is the bias tensor's type.
template <int Slot, class T>
struct BiasStep {
  struct Channel {
    float bias;
  };
  static HF_DEVICE Channel prepare(index_t c, const ChainArgs& args) {
    return {load_float<T>(args.step[Slot].ptr[0], c)};
  }
  static HF_DEVICE float apply(float v, const Channel& ch, const Coord&, index_t, const ChainArgs&) {
    return v + ch.bias;
  }
};

// y = scale * (v - mean) / sqrt(var + eps) + bias, parameters of type P per channel
// (Spatial) or per (channel, spatial position) of the tensor described by Site. Computed
// as v * scale' + shift' with the folded scale' = scale * rsqrt(var + eps) and shift' =
// bias - mean * scale' (fp32; the extra rounding is a few ulp of the terms, see
// lib/reference/compare.cpp). Per channel, the fold happens once in prepare.
template <int Slot, class P, bool Spatial, class Site>
struct BnInferenceStep {
  struct Folded {
    float scale, shift;
  };
  static HF_DEVICE Folded fold(const StepArgs& a, index_t i) {
    const float scale = load_float<P>(a.ptr[0], i) * rsqrtf(load_float<P>(a.ptr[3], i) + a.scalar[0]);
    return {scale, fmaf(-load_float<P>(a.ptr[2], i), scale, load_float<P>(a.ptr[1], i))};
  }
  using Channel = typename conditional<Spatial, Folded, NoChannelState>::type;

  static HF_DEVICE Channel prepare(index_t c, const ChainArgs& args) {
    if constexpr (Spatial) {
      return fold(args.step[Slot], c);
    } else {
      return {};
    }
  }
  static HF_DEVICE float apply(float v, const Channel& ch, const Coord& at, index_t, const ChainArgs& args) {
    if constexpr (Spatial) {
      return fmaf(v, ch.scale, ch.shift);
    } else {  // parameters per position: nothing to share between elements
      const Folded f = fold(args.step[Slot], at.c * Site::spatial + Site::spatial_index(at));
      return fmaf(v, f.scale, f.shift);
    }
  }
};

template <int Slot, ActMode M>
struct ActivationStep {
  using Channel = NoChannelState;
  static HF_DEVICE Channel prepare(index_t, const ChainArgs&) { return {}; }
  static HF_DEVICE float apply(float v, const Channel&, const Coord&, index_t, const ChainArgs& args) {
    const StepArgs& a = args.step[Slot];
    return activation_forward<M>(v, a.scalar[0], a.scalar[1], a.scalar[2]);
  }
};

// y = v + alpha * z; z of type T laid out as Z. When Z addresses like the tensor being
// produced (Site), the value's own offset is z's offset too.
template <int Slot, class T, class Z, class Site>
struct ResidualAddStep {
  using Channel = NoChannelState;
  static HF_DEVICE Channel prepare(index_t, const ChainArgs&) { return {}; }
  static HF_DEVICE float apply(float v, const Channel&, const Coord& at, index_t offset, const ChainArgs& args) {
    const StepArgs& a = args.step[Slot];
    const index_t z_offset = same_addressing<Z, Site> ? offset : Z::offset(at);
    return v + a.scalar[0] * load_float<T>(a.ptr[0], z_offset);
  }
};

// The steps applied in plan order; Channel holds every step's per-channel state.
template <class... Steps>
struct Chain;

template <>
struct Chain<> {
  static constexpr int length = 0;
  static constexpr bool per_channel = false;  // whether prepare does any work
  // Whether prepare_scaled(c, args, alpha) exists: a state whose apply(v) is apply(alpha * v).
  static constexpr bool absorbs_scale = false;
  using Channel = NoChannelState;
  static HF_DEVICE Channel prepare(index_t, const ChainArgs&) { return {}; }
  static HF_DEVICE float apply(float v, const Channel&, const Coord&, index_t, const ChainArgs&) { return v; }
  static HF_DEVICE float apply(float v, const Coord&, index_t, const ChainArgs&) { return v; }
};

template <class Step, class... Rest>
struct Chain<Step, Rest...> {
  using Tail = Chain<Rest...>;
  static constexpr int length = 1 + Tail::length;
  static_assert(length <= kMaxChainSteps, "chain longer than ChainArgs holds");
  static constexpr bool per_channel =
      !is_same<typename Step::Channel, NoChannelState>::value || Tail::per_channel;
  static constexpr bool absorbs_scale = false;

  struct Channel {
    typename Step::Channel head;
    typename Tail::Channel tail;
  };
  static HF_DEVICE Channel prepare(index_t c, const ChainArgs& args) {
    return {Step::prepare(c, args), Tail::prepare(c, args)};
  }
  // `ch` must be prepare(at.c).
  static HF_DEVICE float apply(float v, const Channel& ch, const Coord& at, index_t offset, const ChainArgs& args) {
    return Tail::apply(Step::apply(v, ch.head, at, offset, args), ch.tail, at, offset, args);
  }
  static HF_DEVICE float apply(float v, const Coord& at, index_t offset, const ChainArgs& args) {
    return apply(v, prepare(at.c, args), at, offset, args);
  }
};

// A bias then a per-channel BN inference, as CBNA's epilogue has them, fold into one
// affine map per channel: (v + bias) * scale' + shift' = v * scale' + (bias * scale' + shift'),
// and a scale of v before the chain (the convolution's alpha) folds into scale' as well: one
// fma an element where the steps one by one take three operations (two of them fused), and
// two values a channel to hold (or stage in shared memory) instead of three. The extra
// rounding is that of the folded terms, a few ulp each, as for the BN fold itself.
template <int BiasSlot, class T, int BnSlot, class P, class Site, class... Rest>
struct Chain<BiasStep<BiasSlot, T>, BnInferenceStep<BnSlot, P, true, Site>, Rest...> {
  using Tail = Chain<Rest...>;
  static constexpr int length = 2 + Tail::length;
  static_assert(length <= kMaxChainSteps, "chain longer than ChainArgs holds");
  static constexpr bool per_channel = true;
  static constexpr bool absorbs_scale = true;

  struct Channel {
    float scale, shift;
    typename Tail::Channel tail;
  };
  static HF_DEVICE Channel prepare(index_t c, const ChainArgs& args) {
    const auto bn = BnInferenceStep<BnSlot, P, true, Site>::fold(args.step[BnSlot], c);
    const float bias = load_float<T>(args.step[BiasSlot].ptr[0], c);
    return {bn.scale, fmaf(bias, bn.scale, bn.shift), Tail::prepare(c, args)};
  }
  // The state for values that arrive unscaled: apply(v, prepare_scaled(c, args, alpha)) is
  // apply(alpha * v, prepare(c, args)).
  static HF_DEVICE Channel prepare_scaled(index_t c, const ChainArgs& args, float alpha) {
    Channel ch = prepare(c, args);
    ch.scale *= alpha;
    return ch;
  }
  // `ch` must be prepare(at.c).
  static HF_DEVICE float apply(float v, const Channel& ch, const Coord& at, index_t offset, const ChainArgs& args) {
    return Tail::apply(fmaf(v, ch.scale, ch.shift), ch.tail, at, offset, args);
  }
  static HF_DEVICE float apply(float v, const Coord& at, index_t offset, const ChainArgs& args) {
    return apply(v, prepare(at.c, args), at, offset, args);
  }
};

}  // namespace hf
