// Per-channel bias and the residual (scale-add) input of conv epilogues.
#pragma once

#include "hipfuse/reference/tensor.h"

namespace hipfuse::ref {

// y[n, k, ...] + bias[k]. bias holds K values in any shape (1xKx1x1, {K}, ...).
Tensor bias_add(const Tensor& y, const Tensor& bias);

// y + alpha * z, z of the same lengths as y.
Tensor residual_add(const Tensor& y, const Tensor& z, double alpha);

// alpha * y (the one-shot conv-bias-activation call scales the conv result by alpha1).
Tensor scale(const Tensor& y, double alpha);

}  // namespace hipfuse::ref
