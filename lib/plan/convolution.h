// Convolution descriptors: geometry per spatial dimension, groups, attributes.
#pragma once

#include "plan/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hipfuse {

// Values equal miopenConvolutionMode_t's.
enum class ConvMode : int { convolution = 0, transpose = 1 };

struct ConvDesc {
  ConvMode mode = ConvMode::convolution;
  // One per spatial dimension; the defaults are MIOpen's freshly created descriptor (2-D).
  std::vector<int> pads{0, 0}, strides{1, 1}, dilations{1, 1};
  int groups = 1;
  bool deterministic = false;  // MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC (fused kernels always are)
  bool allow_tf32 = false;     // hipfuse extension: fp32 on tensor cores only when asked

  std::string to_string() const;  // "conv pad 1x1 stride 1x1 dil 1x1 g 1" for messages and keys
  int spatial_dims() const { return static_cast<int>(pads.size()); }

  // The forward output descriptor for input x and weights w (lengths K, C/groups, filter...;
  // for transpose C, K/groups, filter...), packed in x's layout, of x's type. Throws
  // hipfuse::Error(bad_parm) with the reason on any mismatch (dimensions, types, channels).
  // Spatial size per MIOpen: max(1, (in + 2p - (d(k-1)+1)) / s + 1).
  TensorDesc forward_output(const TensorDesc& x, const TensorDesc& w) const;
};

}  // namespace hipfuse
