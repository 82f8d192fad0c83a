#include "hipfuse/reference/chain.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "hipfuse/reference/elementwise.h"

namespace hipfuse::ref {
namespace {

template <class T>
constexpr bool is_a(const Op& op) {
    return std::holds_alternative<T>(op);
}

// MIOpen declares the backward pair in forward-graph order, so an activation backward is only
// meaningful as the second op of [BnBackwardOp, ActivationBackwardOp].
void check_placement(const std::vector<Op>& ops) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (is_a<ActivationBackwardOp>(ops[i]) && (i == 0 || !is_a<BnBackwardOp>(ops[i - 1]))) {
            throw std::invalid_argument("reference chain: ActivationBackwardOp at position " + std::to_string(i) +
                                        " must directly follow a BnBackwardOp (plan order [BN backward, "
                                        "activation backward], computed as activation backward then BN backward)");
        }
    }
}

void round_if(Tensor& t, const ChainOptions& options) {
    if (options.round_intermediates) round_all(t, *options.round_intermediates);
}

double round_if(double v, const ChainOptions& options) {
    return options.round_intermediates ? round_to(*options.round_intermediates, v) : v;
}

// Ops that act on one op input (everything but the backward pair).
struct ApplyOp {
    const Tensor& in;

    Tensor operator()(ConvOp& op) const {
        Tensor y = conv_forward(in, op.weights, op.geometry);
        return op.alpha == 1.0 ? y : scale(y, op.alpha);
    }
    Tensor operator()(BiasOp& op) const { return bias_add(in, op.bias); }
    Tensor operator()(ResidualAddOp& op) const { return residual_add(in, op.z, op.alpha); }
    Tensor operator()(BnInferenceOp& op) const {
        return bn_inference(in, op.mode, op.scale, op.bias, op.mean, op.var, op.epsilon);
    }
    Tensor operator()(BnForwardTrainingOp& op) const {
        return bn_forward_training(in, op.mode, op.scale, op.bias, op.epsilon, op.exp_avg_factor,
                                   op.running ? &*op.running : nullptr, op.saved_mean, op.saved_inv_var);
    }
    Tensor operator()(BnBackwardOp& op) const {
        return bn_backward(in, op.x, op.mode, op.scale, op.saved_mean, op.saved_inv_var, op.dscale, op.dbias);
    }
    Tensor operator()(ActivationForwardOp& op) const {
        return activation_forward(in, op.mode, op.alpha, op.beta, op.gamma);
    }
    Tensor operator()(ActivationBackwardOp&) const {
        throw std::logic_error("reference chain: ActivationBackwardOp is applied with its BnBackwardOp");
    }
};

// dy -> activation backward (input z = BN output recomputed from saved statistics) -> BN backward.
Tensor backward_pair(const Tensor& dy, BnBackwardOp& bn, ActivationBackwardOp& act, const ChainOptions& options) {
    const Tensor z = bn_normalize(bn.x, bn.mode, bn.scale, bn.bias, bn.saved_mean, bn.saved_inv_var);
    Tensor dz = activation_backward(dy, z, act.y, act.mode, act.alpha, act.beta, act.gamma);
    round_if(dz, options);
    Tensor dx = bn_backward(dz, bn.x, bn.mode, bn.scale, bn.saved_mean, bn.saved_inv_var, bn.dscale, bn.dbias);
    if (options.alternates) {
        // The kernel computes z in fp32 from terms about as large as z's RMS: within 2^-16 of that
        // (256 fp32 ulps) of a jump of the derivative, either branch is a correct answer.
        double sum_sq = 0.0;
        for (double v : z.data) sum_sq += v * v;
        const double margin = std::ldexp(std::sqrt(sum_sq / static_cast<double>(std::max<std::int64_t>(z.numel(), 1))), -16);
        for (std::int64_t i = 0; i < z.numel(); ++i) {
            double other = 0.0;
            if (!activation_backward_other_side(dy[i], z[i], act.y[i], act.mode, act.alpha, act.beta, act.gamma, margin,
                                                &other))
                continue;
            const double change = bn_backward_dx_change(bn.x, bn.mode, bn.scale, bn.saved_mean, bn.saved_inv_var, i,
                                                        round_if(other, options) - dz[i]);
            options.alternates->push_back(Alternate{i, round_if(dx[i] + change, options)});
        }
    }
    return dx;
}

// One output element of an element-local op at linear index i of a tensor of `lengths`.
struct ApplyAt {
    double v;
    std::int64_t i;
    const std::vector<std::int64_t>& lengths;

    std::int64_t channel() const { return (i / spatial_size(lengths)) % lengths[1]; }
    std::int64_t bn_param(BnMode mode) const {
        const std::int64_t s = spatial_size(lengths);
        return mode == BnMode::spatial ? channel() : channel() * s + i % s;
    }

    double operator()(const BiasOp& op) const {
        if (op.bias.numel() != lengths[1]) throw std::invalid_argument("reference chain: bias size != channels");
        return v + op.bias[channel()];
    }
    double operator()(const ResidualAddOp& op) const {
        if (op.z.lengths != lengths) throw std::invalid_argument("reference chain: z lengths differ");
        return v + op.alpha * op.z[i];
    }
    double operator()(const BnInferenceOp& op) const {
        const std::int64_t p = bn_param(op.mode);
        const std::int64_t params = element_count(bn_param_lengths(lengths, op.mode));
        for (const Tensor* t : {&op.scale, &op.bias, &op.mean, &op.var}) {
            if (t->numel() != params) throw std::invalid_argument("reference chain: BN parameter size");
        }
        return bn_inference_value(v, op.scale[p], op.bias[p], op.mean[p], op.var[p], op.epsilon);
    }
    double operator()(const ActivationForwardOp& op) const {
        return activation_forward(v, op.mode, op.alpha, op.beta, op.gamma);
    }
    template <class Other>
    double operator()(const Other&) const {
        throw std::logic_error("reference chain: op is not element-local");
    }
};

}  // namespace

std::vector<std::int64_t> chain_output_lengths(const std::vector<std::int64_t>& input_lengths,
                                               const std::vector<Op>& ops) {
    check_placement(ops);
    std::vector<std::int64_t> lengths = input_lengths;
    for (const Op& op : ops) {
        if (const auto* conv = std::get_if<ConvOp>(&op)) {
            lengths = conv_output_lengths(lengths, conv->weights.lengths, conv->geometry);
        } else if (const auto* add = std::get_if<ResidualAddOp>(&op)) {
            if (add->z.lengths != lengths) throw std::invalid_argument("reference chain: residual z lengths differ");
        }
    }
    return lengths;
}

Tensor run_chain(const Tensor& input, std::vector<Op>& ops, const ChainOptions& options) {
    check_placement(ops);
    Tensor current = input;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        auto* bn_bwd = std::get_if<BnBackwardOp>(&ops[i]);
        auto* act_bwd = i + 1 < ops.size() ? std::get_if<ActivationBackwardOp>(&ops[i + 1]) : nullptr;
        if (bn_bwd && act_bwd) {
            current = backward_pair(current, *bn_bwd, *act_bwd, options);
            ++i;
        } else {
            current = std::visit(ApplyOp{current}, ops[i]);
        }
        round_if(current, options);
    }
    return current;
}

std::vector<double> run_chain_sampled(const Tensor& input, std::vector<Op>& ops,
                                      const std::vector<std::int64_t>& output_indices, const ChainOptions& options) {
    check_placement(ops);
    for (const Op& op : ops) {
        if (is_a<BnForwardTrainingOp>(op) || is_a<BnBackwardOp>(op)) {
            throw std::invalid_argument("reference chain: sampling is not possible for chains with BN training "
                                        "or BN backward ops (they need whole-tensor statistics); run the full chain");
        }
    }
    std::size_t last_conv = ops.size();
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (is_a<ConvOp>(ops[i])) last_conv = i;
    }
    const bool has_conv = last_conv < ops.size();
    const std::size_t suffix = has_conv ? last_conv + 1 : 0;

    const std::vector<std::int64_t> lengths = chain_output_lengths(input.lengths, ops);
    const std::int64_t total = element_count(lengths);
    std::vector<Op> prefix_ops(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(has_conv ? last_conv : 0));
    const Tensor prefix = prefix_ops.empty() ? Tensor{} : run_chain(input, prefix_ops, options);
    const Tensor& conv_in = prefix_ops.empty() ? input : prefix;

    std::vector<double> out;
    out.reserve(output_indices.size());
    for (const std::int64_t index : output_indices) {
        if (index < 0 || index >= total) throw std::out_of_range("run_chain_sampled: output index out of range");
        double v = 0.0;
        if (has_conv) {
            const auto& conv = std::get<ConvOp>(ops[last_conv]);
            v = conv_forward_at(conv_in, conv.weights, conv.geometry, multi_index(lengths, index));
            if (conv.alpha != 1.0) v *= conv.alpha;
            v = round_if(v, options);
        } else {
            v = input[index];
        }
        for (std::size_t i = suffix; i < ops.size(); ++i) v = round_if(std::visit(ApplyAt{v, index, lengths}, ops[i]), options);
        out.push_back(v);
    }
    return out;
}

}  // namespace hipfuse::ref
