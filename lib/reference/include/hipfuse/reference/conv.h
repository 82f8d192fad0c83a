// Forward convolution (cross-correlation, zero padding), grouped and depthwise, 1-3 spatial dims.
#pragma once

#include <cstdint>
#include <vector>

#include "hipfuse/reference/tensor.h"

namespace hipfuse::ref {

struct ConvGeometry {
    std::vector<std::int64_t> pad;       // per spatial dim; empty = 0 everywhere
    std::vector<std::int64_t> stride;    // per spatial dim; empty = 1 everywhere
    std::vector<std::int64_t> dilation;  // per spatial dim; empty = 1 everywhere
    std::int64_t groups = 1;
};

// y lengths {N, K, out...}, out = floor((in + 2*pad - (dil*(k-1)+1)) / stride) + 1 per spatial dim.
// Throws std::invalid_argument for ranks outside 3..5, mismatched ranks, channels that do not
// match the groups (w = {K, C/groups, filter...}, K % groups == 0), pad < 0, stride or
// dilation < 1, or an output dim < 1.
std::vector<std::int64_t> conv_output_lengths(const std::vector<std::int64_t>& x_lengths,
                                              const std::vector<std::int64_t>& w_lengths,
                                              const ConvGeometry& geometry);

// y[n,k,o] = sum over c in k's group and filter taps f of x[n, c, o*stride - pad + f*dil] * w[k, c', f].
// Accumulates in double; runs on all hardware threads, one (n, k) output plane per work item.
Tensor conv_forward(const Tensor& x, const Tensor& w, const ConvGeometry& geometry);

// One output element, y_index = {n, k, spatial...}; for sampled checks of huge problems.
double conv_forward_at(const Tensor& x, const Tensor& w, const ConvGeometry& geometry,
                       const std::vector<std::int64_t>& y_index);

// Multiply-adds x2 of the convolution: 2 * N * K * out_spatial * (C/groups) * filter_size.
double conv_forward_flops(const std::vector<std::int64_t>& x_lengths, const std::vector<std::int64_t>& w_lengths,
                          const ConvGeometry& geometry);

}  // namespace hipfuse::ref
