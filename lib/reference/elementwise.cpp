#include "hipfuse/reference/elementwise.h"

#include <stdexcept>
#include <string>

namespace hipfuse::ref {

Tensor bias_add(const Tensor& y, const Tensor& bias) {
    if (y.rank() < 2) throw std::invalid_argument("bias_add: y needs {N, C, ...} lengths");
    const std::int64_t channels = y.lengths[1];
    if (bias.numel() != channels) {
        throw std::invalid_argument("bias_add: bias has " + std::to_string(bias.numel()) + " values, y has " +
                                    std::to_string(channels) + " channels");
    }
    const std::int64_t inner = spatial_size(y.lengths);
    Tensor out = y;
    for (std::int64_t i = 0; i < out.numel(); ++i) out[i] += bias[(i / inner) % channels];
    return out;
}

Tensor residual_add(const Tensor& y, const Tensor& z, double alpha) {
    if (y.lengths != z.lengths) throw std::invalid_argument("residual_add: z lengths differ from y lengths");
    Tensor out = y;
    for (std::int64_t i = 0; i < out.numel(); ++i) out[i] += alpha * z[i];
    return out;
}

Tensor scale(const Tensor& y, double alpha) {
    Tensor out = y;
    for (double& v : out.data) v *= alpha;
    return out;
}

}  // namespace hipfuse::ref
