// Tensor descriptors as hipfuse sees them: data type, logical lengths (always N, C,
// [D,] H, W, MIOpen's convention) and element strides, which carry the layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hipfuse {

// Values equal miopenDataType_t's.
enum class DataType : int {
  half = 0, float32 = 1, int32 = 2, int8 = 3, bfloat16 = 5, float64 = 6,
  float8 = 7, bfloat8 = 8, int64 = 9,  // describable; no fused kernel takes them
};

// Values equal miopenTensorLayout_t's (the subset hipfuse describes).
enum class Layout : int { nchw = 0, nhwc = 1, ncdhw = 7, ndhwc = 8 };

std::size_t size_of(DataType type);
const char* name_of(DataType type);  // "fp16", "fp32", "bf16", ...
bool is_valid(DataType type);        // one of the values above

struct TensorDesc {
  DataType type = DataType::float32;
  std::vector<std::int64_t> lengths;
  std::vector<std::int64_t> strides;

  // Throws Error(bad_parm) for a tensor too large (see check_size).
  static TensorDesc packed(DataType type, std::vector<std::int64_t> lengths, Layout layout);

  int dims() const { return static_cast<int>(lengths.size()); }
  int spatial_dims() const { return dims() - 2; }
  std::int64_t element_count() const;
  std::int64_t span() const;          // elements from the first to one past the last addressed
  std::size_t bytes() const;          // span() * size_of(type)
  // Error(bad_parm) "tensor too large" unless it addresses fewer than 2^59 and counts
  // fewer than 2^62 elements: every size computed from a checked descriptor fits in 64
  // bits. element_count()/span() throw the same on a (never checked) overflowing one.
  void check_size() const;
  bool is_packed() const;             // no gaps, no overlap (any dimension order)
  bool is_channels_last() const;      // C has stride 1 and the tensor is packed NHWC/NDHWC
  bool is_channels_first_packed() const;
  // The layout the strides describe: channels-last (nhwc/ndhwc) when they are exactly the
  // packed channels-last strides, or decrease in the order N, spatial..., C (ignoring
  // dimensions of length 1) and not also in the order N, C, spatial...; otherwise
  // nchw/ncdhw. Derived tensors (conv outputs) follow it.
  Layout layout() const;
  std::string to_string() const;      // "fp16 64x64x56x56 (nhwc)" for messages and keys

  // Type, lengths and strides: what Execute compares (MIOpen ignores the layout enum).
  bool operator==(const TensorDesc& other) const {
    return type == other.type && lengths == other.lengths && strides == other.strides;
  }
  bool operator!=(const TensorDesc& other) const { return !(*this == other); }
};

}  // namespace hipfuse
