#pragma once
// Work of one plan execution, for GB/s and TFLOP/s.
//
// Bytes are the minimum traffic of a perfectly fused kernel: every input and parameter read
// once (of a convolution's input, only the pixels its windows cover: a quarter of x for a 1x1
// of stride 2), every output written once (in/out tensors such as BN running statistics count twice).
// Intermediates between fused ops cost nothing. FLOPs: 2*N*K*out_spatial*(C/groups)*filter_taps
// per convolution (one multiply-add = 2), plus a nominal count per element for the pointwise
// ops, listed in kPointwiseFlops below (transcendentals count as one).

#include <cstdint>

#include "case.h"
#include "problem.h"

namespace hipfuse::driver {

struct Work {
  double bytes = 0;
  double flops = 0;
};

// Nominal FLOPs per element of each non-conv op.
struct PointwiseFlops {
  double bias = 1;                 // y + b
  double residual_add = 2;         // y + alpha * z
  double bn_inference = 2;         // y * a + b with a, b folded per channel
  double bn_forward_training = 7;  // sum, sum of squares (3) + normalise, scale, shift (4)
  double bn_backward = 8;          // two reductions (3) + dx (5)
  double activation = 1;
  double activation_backward = 2;
};
inline constexpr PointwiseFlops kPointwiseFlops{};

// FLOPs of one conv op on an input of `in` lengths (0 for other ops).
double conv_flops(const ConvSpec& conv, const std::vector<int64_t>& in, const std::vector<int64_t>& out);

// The fraction of the input's spatial positions that some window of the convolution reads
// (1 when every position is read, or the lengths do not describe a convolution).
double conv_read_fraction(const ConvSpec& conv, const std::vector<int64_t>& in, const std::vector<int64_t>& out);

// Work of the whole fused plan.
Work plan_work(const Case& c, const Problem& p);
inline Work plan_work(const Case& c) { return plan_work(c, make_problem(c)); }

// Rates from work and a time in microseconds; 0 for a non-positive time.
double gb_per_s(double bytes, double microseconds);
double tflop_per_s(double flops, double microseconds);

}  // namespace hipfuse::driver
