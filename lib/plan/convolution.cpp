#include "plan/convolution.h"

#include "common/error.h"

#include <algorithm>

namespace hipfuse {

namespace {

std::string join(const std::vector<int>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "x" : "") + std::to_string(values[i]);
  return out;
}

}  // namespace

std::string ConvDesc::to_string() const {
  std::string out = mode == ConvMode::transpose ? "transpose" : "conv";
  out += " pad " + join(pads) + " stride " + join(strides) + " dil " + join(dilations);
  out += " g " + std::to_string(groups);
  if (deterministic) out += " deterministic";
  if (allow_tf32) out += " tf32";
  return out;
}

TensorDesc ConvDesc::forward_output(const TensorDesc& x, const TensorDesc& w) const {
  const int sd = spatial_dims();
  if (sd < 1 || strides.size() != pads.size() || dilations.size() != pads.size()) {
    fail(Status::bad_parm, "the convolution descriptor is not initialised");
  }
  for (int d = 0; d < sd; ++d) {
    if (pads[d] < 0 || strides[d] < 1 || dilations[d] < 1) {
      fail(Status::bad_parm, "invalid convolution geometry (" + to_string() + "): pads must be >= 0, strides and dilations >= 1");
    }
  }
  if (groups < 1) fail(Status::bad_parm, "convolution group count must be >= 1, got " + std::to_string(groups));
  if (x.dims() != sd + 2) {
    fail(Status::bad_parm, "a " + std::to_string(sd) + "-D convolution needs a " + std::to_string(sd + 2) +
                               "-D input, got " + x.to_string());
  }
  if (w.dims() != sd + 2) {
    fail(Status::bad_parm, "a " + std::to_string(sd) + "-D convolution needs " + std::to_string(sd + 2) +
                               "-D weights, got " + w.to_string());
  }
  for (auto len : x.lengths) {
    if (len <= 0) fail(Status::bad_parm, "the convolution input has a non-positive length: " + x.to_string());
  }
  for (auto len : w.lengths) {
    if (len <= 0) fail(Status::bad_parm, "the convolution weights have a non-positive length: " + w.to_string());
  }
  if (x.type != w.type) {
    fail(Status::bad_parm, std::string("input and weights types differ: x is ") + name_of(x.type) + ", w is " +
                               name_of(w.type));
  }

  const std::int64_t c = x.lengths[1];
  std::int64_t k = 0;
  if (mode == ConvMode::convolution) {
    // Weights are K x C/groups x filter; each group sees C/groups input channels.
    if (c != w.lengths[1] * groups) {
      fail(Status::bad_parm, "Channels do not match for the filter: input has C=" + std::to_string(c) +
                                 ", weights have C/groups=" + std::to_string(w.lengths[1]) + " with " +
                                 std::to_string(groups) + " group(s)");
    }
    k = w.lengths[0];
  } else {
    // Transpose: weights are C x K/groups x filter.
    if (c != w.lengths[0]) {
      fail(Status::bad_parm, "Channels do not match for the filter: input has C=" + std::to_string(c) +
                                 ", transpose weights have " + std::to_string(w.lengths[0]));
    }
    k = w.lengths[1] * groups;
  }
  if (k % groups != 0 || c % groups != 0) {
    fail(Status::bad_parm, "channels (C=" + std::to_string(c) + ", K=" + std::to_string(k) +
                               ") are not divisible by the group count " + std::to_string(groups));
  }

  std::vector<std::int64_t> lengths{x.lengths[0], k};
  for (int d = 0; d < sd; ++d) {
    const std::int64_t in = x.lengths[static_cast<std::size_t>(d + 2)];
    const std::int64_t filter = w.lengths[static_cast<std::size_t>(d + 2)];
    const std::int64_t extent = static_cast<std::int64_t>(dilations[d]) * (filter - 1) + 1;
    std::int64_t out = 0;
    if (mode == ConvMode::convolution) {
      out = std::max<std::int64_t>(1, (in + std::int64_t{2} * pads[d] - extent) / strides[d] + 1);
    } else {
      out = static_cast<std::int64_t>(strides[d]) * (in - 1) + extent - std::int64_t{2} * pads[d];
      if (out < 1) {
        fail(Status::bad_parm, "transpose convolution output would be empty in spatial dimension " + std::to_string(d));
      }
    }
    lengths.push_back(out);
  }
  return TensorDesc::packed(x.type, std::move(lengths), x.layout());
}

}  // namespace hipfuse
