// Compile-time tensor geometry: every tensor is seen as 5-D (N, C, D, H, W) with element
// strides; 2-D tensors have D = 1 (and 1-D ones H = 1), so one code path serves all ranks.
// Lengths and strides are template constants baked in by the plan header, so the index
// arithmetic below folds into multiplications by constants.
#pragma once

#include "common/vendor.h"

namespace hf {

// Logical coordinates of one element.
struct Coord {
  index_t n, c, d, h, w;
};

namespace detail {
// Coordinate along one dimension of a packed tensor at element offset `off`. Off may be a
// 32-bit type when the tensor fits: the constant divisions then take a multiply-high and a
// shift instead of the 64-bit sequence.
template <index_t Length, index_t Stride, class Off>
HF_DEVICE index_t packed_coord(Off off) {
  if constexpr (Length == 1) {
    return 0;
  } else {
    return static_cast<index_t>((off / static_cast<Off>(Stride)) % static_cast<Off>(Length));
  }
}
}  // namespace detail

template <bool Packed, index_t N_, index_t C_, index_t D_, index_t H_, index_t W_, index_t SN, index_t SC,
          index_t SD, index_t SH, index_t SW>
struct Geometry {
  static constexpr bool packed = Packed;  // no gaps, no overlap, in any dimension order
  static constexpr index_t N = N_, C = C_, D = D_, H = H_, W = W_;
  static constexpr index_t stride_n = SN, stride_c = SC, stride_d = SD, stride_h = SH, stride_w = SW;
  static constexpr index_t spatial = D * H * W;
  static constexpr index_t elements = N * C * spatial;

  // The dimension with stride 1 (and length > 1) that 16-byte accesses run along; -1: none.
  static constexpr int inner_dim = (SW == 1 && W > 1)   ? 4
                                   : (SH == 1 && H > 1) ? 3
                                   : (SD == 1 && D > 1) ? 2
                                   : (SC == 1 && C > 1) ? 1
                                   : (SN == 1 && N > 1) ? 0
                                                        : -1;
  static constexpr index_t inner_length = inner_dim == 4   ? W
                                          : inner_dim == 3 ? H
                                          : inner_dim == 2 ? D
                                          : inner_dim == 1 ? C
                                          : inner_dim == 0 ? N
                                                           : 1;

  static HF_DEVICE index_t offset(const Coord& at) {
    return at.n * SN + at.c * SC + at.d * SD + at.h * SH + at.w * SW;
  }
  // Row-major index over the spatial dimensions: the per-activation BN parameter layout.
  static HF_DEVICE index_t spatial_index(const Coord& at) { return (at.d * H + at.h) * W + at.w; }

  static HF_DEVICE void set_spatial(Coord& at, index_t s) {
    at.w = W == 1 ? 0 : s % W;
    at.h = H == 1 ? 0 : (s / W) % H;
    at.d = D == 1 ? 0 : s / (W * H);
  }
  // The coordinates of the element at `off` of a packed tensor (any dimension order).
  template <class Off = index_t>
  static HF_DEVICE Coord coord_of_packed_offset(Off off) {
    return {detail::packed_coord<N, SN>(off), detail::packed_coord<C, SC>(off), detail::packed_coord<D, SD>(off),
            detail::packed_coord<H, SH>(off), detail::packed_coord<W, SW>(off)};
  }
  // The coordinates of logical element i in row-major N, C, D, H, W order (any strides).
  static HF_DEVICE Coord coord_of_logical(index_t i) {
    Coord at;
    set_spatial(at, i % spatial);
    at.c = C == 1 ? 0 : (i / spatial) % C;
    at.n = N == 1 ? 0 : i / (spatial * C);
    return at;
  }
  // `at` moved `step` elements along the stride-1 dimension.
  static HF_DEVICE Coord along_inner(Coord at, index_t step) {
    if constexpr (inner_dim == 4) at.w += step;
    if constexpr (inner_dim == 3) at.h += step;
    if constexpr (inner_dim == 2) at.d += step;
    if constexpr (inner_dim == 1) at.c += step;
    if constexpr (inner_dim == 0) at.n += step;
    return at;
  }
};

// Whether two geometries address every element at the same offset.
template <class A, class B>
constexpr bool same_addressing = (A::N == 1 || A::stride_n == B::stride_n) &&
                                 (A::C == 1 || A::stride_c == B::stride_c) &&
                                 (A::D == 1 || A::stride_d == B::stride_d) &&
                                 (A::H == 1 || A::stride_h == B::stride_h) &&
                                 (A::W == 1 || A::stride_w == B::stride_w) && A::N == B::N && A::C == B::C &&
                                 A::D == B::D && A::H == B::H && A::W == B::W;

}  // namespace hf
