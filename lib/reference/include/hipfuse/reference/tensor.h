// Dense logical tensors in double, and conversion from/to strided device storage.
#pragma once

#include <cstdint>
#include <vector>

#include "hipfuse/reference/dtype.h"

namespace hipfuse::ref {

// A dense logical tensor: lengths = {N, C, spatial...}, data row-major in that order whatever the
// storage layout was. Layout exists only in from_storage / to_storage.
struct Tensor {
    std::vector<std::int64_t> lengths;
    std::vector<double> data;

    std::int64_t numel() const { return static_cast<std::int64_t>(data.size()); }
    std::int64_t rank() const { return static_cast<std::int64_t>(lengths.size()); }
    double& operator[](std::int64_t i) { return data[static_cast<std::size_t>(i)]; }
    double operator[](std::int64_t i) const { return data[static_cast<std::size_t>(i)]; }
};

// Product of the lengths (1 for an empty list). Throws std::invalid_argument on a negative length.
std::int64_t element_count(const std::vector<std::int64_t>& lengths);

// Product of lengths[2..]: the spatial size of an {N, C, spatial...} tensor.
std::int64_t spatial_size(const std::vector<std::int64_t>& lengths);

// A tensor of the given lengths, every element `value`.
Tensor make_tensor(std::vector<std::int64_t> lengths, double value = 0.0);

// Rounds every element to t (for unfused baselines and to make host data match device data).
void round_all(Tensor& t, DType dtype);

enum class Layout { nchw, nhwc };  // nhwc = channels last for any number of spatial dims

// Element strides of a packed tensor, per logical dim {N, C, spatial...}.
// nchw: row-major. nhwc for 4-D {N,C,H,W}: {H*W*C, 1, W*C, C}; 5-D likewise with D.
std::vector<std::int64_t> packed_strides(const std::vector<std::int64_t>& lengths, Layout layout);

// Elements a strided buffer must hold: 1 + sum((len - 1) * stride), 0 when any length is 0.
std::int64_t storage_elements(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& strides);

// Decodes the elements of a strided buffer (element strides per logical dim) into a logical tensor.
Tensor from_storage(const void* bytes, DType dtype, const std::vector<std::int64_t>& lengths,
                    const std::vector<std::int64_t>& strides);

// Encodes a logical tensor into a strided buffer; elements between strides are left untouched.
void to_storage(const Tensor& t, DType dtype, const std::vector<std::int64_t>& strides, void* bytes);

// Row-major linear index <-> multi-index over `lengths`.
std::int64_t linear_index(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& index);
std::vector<std::int64_t> multi_index(const std::vector<std::int64_t>& lengths, std::int64_t linear);

}  // namespace hipfuse::ref
