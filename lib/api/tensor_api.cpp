// Tensor descriptors and the batch-norm parameter descriptor helper.
#include "api/boundary.h"
#include "api/convert.h"
#include "api/objects.h"

#include <limits>
#include <memory>

using namespace hipfuse;
using namespace hipfuse::api;

namespace {

constexpr int kMaxDims = 8;

std::vector<std::int64_t> checked_lengths(const int* lens, int count) {
  std::vector<std::int64_t> lengths;
  for (int i = 0; i < count; ++i) {
    if (lens[i] <= 0) {
      fail(Status::bad_parm, "tensor length " + std::to_string(i) + " is " + std::to_string(lens[i]) +
                                 " (lengths must be > 0)");
    }
    lengths.push_back(lens[i]);
  }
  return lengths;
}

std::vector<std::int64_t> checked_strides(const int* strides, int count) {
  std::vector<std::int64_t> out;
  for (int i = 0; i < count; ++i) {
    if (strides[i] <= 0) {
      fail(Status::bad_parm, "tensor stride " + std::to_string(i) + " is " + std::to_string(strides[i]) +
                                 " (strides must be > 0)");
    }
    out.push_back(strides[i]);
  }
  return out;
}

TensorDesc make(DataType type, std::vector<std::int64_t> lengths, std::vector<std::int64_t> strides) {
  TensorDesc t;
  t.type = type;
  t.lengths = std::move(lengths);
  t.strides = std::move(strides);
  t.check_size();
  return t;
}

// Strides for MIOpen's plain layouts; lens are in logical order N, C, [D,] H, W.
TensorDesc with_layout(DataType type, int layout, std::vector<std::int64_t> lengths) {
  const auto need = [&](std::size_t dims, const char* name) {
    if (lengths.size() != dims) {
      fail(Status::bad_parm, std::string("layout ") + name + " needs " + std::to_string(dims) + " lengths, got " +
                                 std::to_string(lengths.size()));
    }
  };
  switch (layout) {
    case miopenTensorNCHW: need(4, "miopenTensorNCHW"); return TensorDesc::packed(type, lengths, Layout::nchw);
    case miopenTensorNHWC: need(4, "miopenTensorNHWC"); return TensorDesc::packed(type, lengths, Layout::nhwc);
    case miopenTensorNCDHW: need(5, "miopenTensorNCDHW"); return TensorDesc::packed(type, lengths, Layout::ncdhw);
    case miopenTensorNDHWC: need(5, "miopenTensorNDHWC"); return TensorDesc::packed(type, lengths, Layout::ndhwc);
    case miopenTensorCHWN: {
      need(4, "miopenTensorCHWN");
      // C, H, W, N from outermost to innermost: packed strides of the permuted lengths.
      const auto chwn = TensorDesc::packed(type, {lengths[1], lengths[2], lengths[3], lengths[0]}, Layout::nchw);
      return make(type, lengths, {1, chwn.strides[0], chwn.strides[1], chwn.strides[2]});
    }
    case miopenTensorNCHWc4:
    case miopenTensorNCHWc8:
    case miopenTensorCHWNc4:
    case miopenTensorCHWNc8:
      fail(Status::not_implemented, "vectorised layouts (NCHWc4/c8, CHWNc4/c8) are not supported by hipfuse");
    default: break;
  }
  fail(Status::bad_parm, "invalid tensor layout " + std::to_string(layout));
}

int to_int(std::int64_t value, const char* what) {
  if (value > std::numeric_limits<int>::max()) {
    fail(Status::bad_parm, std::string(what) + " " + std::to_string(value) + " does not fit in an int");
  }
  return static_cast<int>(value);
}

}  // namespace

extern "C" {

miopenStatus_t miopenCreateTensorDescriptor(miopenTensorDescriptor_t* tensorDesc) {
  return guarded(__func__, [&] {
    auto& out = out_param(tensorDesc, "tensorDesc");  // before allocating: a null output must not leak
    out = new TensorObject();
  });
}

miopenStatus_t miopenSet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc, miopenDataType_t dataType, int n,
                                           int c, int h, int w) {
  return guarded(__func__, [&] {
    auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc");
    const int lens[] = {n, c, h, w};
    t.desc = TensorDesc::packed(to_data_type(dataType), checked_lengths(lens, 4), Layout::nchw);
  });
}

miopenStatus_t miopenSetNdTensorDescriptorWithLayout(miopenTensorDescriptor_t tensorDesc, miopenDataType_t dataType,
                                                     miopenTensorLayout_t tensorLayout, const int* lens,
                                                     int num_lens) {
  return guarded(__func__, [&] {
    auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc");
    if (lens == nullptr) fail(Status::invalid_value, "lens is null");
    const DataType type = to_data_type(dataType);
    if (num_lens <= 0 || num_lens > kMaxDims) {
      fail(Status::bad_parm, "num_lens is " + std::to_string(num_lens) + " (must be 1.." + std::to_string(kMaxDims) + ")");
    }
    t.desc = with_layout(type, raw_value(tensorLayout), checked_lengths(lens, num_lens));
  });
}

miopenStatus_t miopenSet4dTensorDescriptorEx(miopenTensorDescriptor_t tensorDesc, miopenDataType_t dataType, int n,
                                             int c, int h, int w, int nStride, int cStride, int hStride,
                                             int wStride) {
  return guarded(__func__, [&] {
    auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc");
    const int lens[] = {n, c, h, w};
    const int strides[] = {nStride, cStride, hStride, wStride};
    t.desc = make(to_data_type(dataType), checked_lengths(lens, 4), checked_strides(strides, 4));
  });
}

miopenStatus_t miopenGet4dTensorDescriptor(miopenTensorDescriptor_t tensorDesc, miopenDataType_t* dataType, int* n,
                                           int* c, int* h, int* w, int* nStride, int* cStride, int* hStride,
                                           int* wStride) {
  return guarded(__func__, [&] {
    const auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc").desc;
    int* outs[] = {n, c, h, w, nStride, cStride, hStride, wStride};
    const char* names[] = {"n", "c", "h", "w", "nStride", "cStride", "hStride", "wStride"};
    for (int i = 0; i < 8; ++i) out_param(outs[i], names[i]);
    auto& type = out_param(dataType, "dataType");
    if (t.dims() != 4) fail(Status::bad_parm, "the descriptor is not 4-D: " + t.to_string());
    int values[8];
    for (int i = 0; i < 4; ++i) {
      values[i] = to_int(t.lengths[static_cast<std::size_t>(i)], "length");
      values[4 + i] = to_int(t.strides[static_cast<std::size_t>(i)], "stride");
    }
    for (int i = 0; i < 8; ++i) *outs[i] = values[i];
    type = static_cast<miopenDataType_t>(t.type);
  });
}

miopenStatus_t miopenSetTensorDescriptor(miopenTensorDescriptor_t tensorDesc, miopenDataType_t dataType, int nbDims,
                                         const int* dimsA, const int* stridesA) {
  return guarded(__func__, [&] {
    auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc");
    if (dimsA == nullptr) fail(Status::invalid_value, "dimsA is null");
    const DataType type = to_data_type(dataType);
    if (nbDims <= 0 || nbDims > kMaxDims) {
      fail(Status::bad_parm, "nbDims is " + std::to_string(nbDims) + " (must be 1.." + std::to_string(kMaxDims) + ")");
    }
    auto lengths = checked_lengths(dimsA, nbDims);
    t.desc = stridesA == nullptr ? TensorDesc::packed(type, std::move(lengths), Layout::nchw)
                                 : make(type, std::move(lengths), checked_strides(stridesA, nbDims));
  });
}

miopenStatus_t miopenGetTensorDescriptorSize(miopenTensorDescriptor_t tensorDesc, int* size) {
  return guarded(__func__, [&] {
    const auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc").desc;
    out_param(size, "size") = t.dims();
  });
}

miopenStatus_t miopenGetTensorDescriptor(miopenTensorDescriptor_t tensorDesc, miopenDataType_t* dataType, int* dimsA,
                                         int* stridesA) {
  return guarded(__func__, [&] {
    const auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc").desc;
    auto& type = out_param(dataType, "dataType");
    out_param(dimsA, "dimsA");
    out_param(stridesA, "stridesA");
    std::vector<int> lens, strides;
    for (int i = 0; i < t.dims(); ++i) {
      lens.push_back(to_int(t.lengths[static_cast<std::size_t>(i)], "length"));
      strides.push_back(to_int(t.strides[static_cast<std::size_t>(i)], "stride"));
    }
    std::copy(lens.begin(), lens.end(), dimsA);
    std::copy(strides.begin(), strides.end(), stridesA);
    type = static_cast<miopenDataType_t>(t.type);
  });
}

miopenStatus_t miopenGetTensorNumBytes(miopenTensorDescriptor_t tensorDesc, size_t* numBytes) {
  return guarded(__func__, [&] {
    const auto& t = checked_cast<TensorObject>(tensorDesc, "tensorDesc").desc;
    out_param(numBytes, "numBytes") = t.bytes();
  });
}

miopenStatus_t miopenDestroyTensorDescriptor(miopenTensorDescriptor_t tensorDesc) {
  return guarded(__func__, [&] {
    if (tensorDesc != nullptr) destroy_object(checked_cast<TensorObject>(tensorDesc, "tensorDesc"));
  });
}

miopenStatus_t miopenDeriveBNTensorDescriptor(miopenTensorDescriptor_t derivedBnDesc,
                                              const miopenTensorDescriptor_t xDesc, miopenBatchNormMode_t bn_mode) {
  return guarded(__func__, [&] {
    auto& derived = checked_cast<TensorObject>(derivedBnDesc, "derivedBnDesc");
    const auto& x = checked_cast<TensorObject>(xDesc, "xDesc").desc;
    const BatchNormMode mode = to_batch_norm_mode(bn_mode);
    if (x.dims() != 4 && x.dims() != 5) {
      fail(Status::bad_parm, "batch norm needs a 4-D or 5-D x, got " + x.to_string());
    }
    derived.desc = batch_norm_params(x, mode);
  });
}

}  // extern "C"
