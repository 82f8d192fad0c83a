#pragma once
// Host data of a case: fresh seeded random values for every tensor the plan reads, rounded to
// the tensor's storage type (so host and device hold identical numbers), and the reference
// chain built from them.
//
//  - Inputs, weights, biases, residuals, BN scale/bias/mean and running means follow the case's
//    [init] distribution; each tensor has its own seed derived from init.seed and its position.
//    The fills never give an all-zero tensor.
//  - Variances (BN inference, running variance) are uniform in [0.5, 2): positive.
//  - For a BN backward plan, the saved mean / inverse std are the batch statistics of the
//    generated x (as the forward training pass would have saved them), and the activation
//    backward's y is the forward activation of z = scale * xhat + bias, computed by the reference.
// Pure host code: unit-tested.

#include <cstdint>
#include <vector>

#include <hipfuse/reference/chain.h>
#include <hipfuse/reference/tensor.h>

#include "case.h"
#include "problem.h"

namespace hipfuse::driver {

inline constexpr double kVarianceMin = 0.5, kVarianceMax = 2.0;
// BN backward ops carry no epsilon; the saved statistics are computed with this one.
inline constexpr double kBackwardEpsilon = 1e-5;

struct HostData {
  // Indexed like Problem::tensors. Read and read-write tensors hold their initial values;
  // write-only outputs are empty (lengths set, no data).
  std::vector<ref::Tensor> values;
};

// The seed of tensor `index` for an [init] seed.
std::uint64_t tensor_seed(std::uint64_t init_seed, std::size_t index);

// Throws std::invalid_argument when the [init] range cannot be filled (no nonzero value in it).
HostData make_host_data(const Case& c, const Problem& p);

// The reference chain for the case, holding copies of the host values.
std::vector<ref::Op> reference_ops(const Case& c, const Problem& p, const HostData& h);

// Storage bytes of a logical tensor for `info` (its dtype and strides), and back.
std::vector<std::uint8_t> to_bytes(const ref::Tensor& t, const TensorInfo& info);
ref::Tensor from_bytes(const std::vector<std::uint8_t>& bytes, const TensorInfo& info);
// The element of logical (row-major) index `linear`, read from a storage image.
double element_at(const std::vector<std::uint8_t>& bytes, const TensorInfo& info, int64_t linear);
// Elements of a storage image still holding the poison pattern (addressed elements only).
int64_t count_unwritten(const std::vector<std::uint8_t>& bytes, const TensorInfo& info);

}  // namespace hipfuse::driver
