// A fusion plan's ops applied one by one, unfused, in plan order: the reference for a whole plan.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "hipfuse/reference/activation.h"
#include "hipfuse/reference/batchnorm.h"
#include "hipfuse/reference/compare.h"
#include "hipfuse/reference/conv.h"
#include "hipfuse/reference/dtype.h"
#include "hipfuse/reference/tensor.h"

namespace hipfuse::ref {

struct ConvOp {
    Tensor weights;  // {K, C/groups, filter...}
    ConvGeometry geometry;
    double alpha = 1.0;  // scales the conv result; only the one-shot conv-bias-activation call uses it
};

struct BiasOp {
    Tensor bias;  // K values
};

struct ResidualAddOp {  // MIOpen's internal tensor scale-add: y + alpha * z
    Tensor z;
    double alpha = 1.0;
};

struct BnInferenceOp {
    BnMode mode = BnMode::spatial;
    Tensor scale, bias, mean, var;  // estimated mean / variance
    double epsilon = 1e-5;
};

struct BnForwardTrainingOp {
    BnMode mode = BnMode::spatial;
    Tensor scale, bias;
    double epsilon = 1e-5;
    double exp_avg_factor = 1.0;
    std::optional<RunningStats> running;  // in/out; updated only when present
    Tensor saved_mean, saved_inv_var;      // out
};

// Input of the chain is dy, output dx. x is the forward BN input; bias recomputes the forward BN
// output z = scale * xhat + bias that a following ActivationBackwardOp needs.
struct BnBackwardOp {
    BnMode mode = BnMode::spatial;
    Tensor x, scale, bias, saved_mean, saved_inv_var;
    Tensor dscale, dbias;  // out
};

struct ActivationForwardOp {
    ActivationMode mode = ActivationMode::pasthru;
    double alpha = 1.0, beta = 0.0, gamma = 1.0;
};

// Valid only right after a BnBackwardOp (MIOpen's declared order [BN backward, activation
// backward]); y is the forward activation output.
struct ActivationBackwardOp {
    ActivationMode mode = ActivationMode::pasthru;
    double alpha = 1.0, beta = 0.0, gamma = 1.0;
    Tensor y;
};

using Op = std::variant<ConvOp, BiasOp, ResidualAddOp, BnInferenceOp, BnForwardTrainingOp, BnBackwardOp,
                        ActivationForwardOp, ActivationBackwardOp>;

struct ChainOptions {
    // Unset (the default): intermediates stay in double, as fused kernels keep them in fp32 and round
    // once at the store; round the result yourself if it should look stored. Set: every op's result
    // (and dz between the backward pair) is rounded to this dtype, modelling unfused kernels that
    // store each intermediate.
    std::optional<DType> round_intermediates;
    // Set: receives, sorted by index, the output elements with a second legitimate value (an
    // activation backward evaluated within rounding of its derivative's jump), for compare().
    std::vector<Alternate>* alternates = nullptr;
};

// Applies `ops` to `input` in plan order and returns the output; output members of the ops (saved
// statistics, running statistics, dscale / dbias) are written. The pair [BnBackwardOp,
// ActivationBackwardOp] runs as dy -> activation backward -> BN backward -> dx; a BnBackwardOp
// not followed by one is plain BN backward. Throws std::invalid_argument for an
// ActivationBackwardOp anywhere else and for shape errors.
Tensor run_chain(const Tensor& input, std::vector<Op>& ops, const ChainOptions& options = {});

// The outputs at `output_indices` (row-major linear indices into the chain's output) only, for
// problems too big for run_chain: ops before the last conv run in full through run_chain (in plans
// there are none: conv comes first), the last conv is evaluated at the requested points only, then
// the element-local ops after it. Throws std::invalid_argument for chains with BN training or
// backward ops (their whole-tensor statistics cannot be sampled) and std::out_of_range for bad indices.
std::vector<double> run_chain_sampled(const Tensor& input, std::vector<Op>& ops,
                                      const std::vector<std::int64_t>& output_indices,
                                      const ChainOptions& options = {});

// The lengths run_chain's output will have (validates the shape-changing ops).
std::vector<std::int64_t> chain_output_lengths(const std::vector<std::int64_t>& input_lengths,
                                               const std::vector<Op>& ops);

}  // namespace hipfuse::ref
