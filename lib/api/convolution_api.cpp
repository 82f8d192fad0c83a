// Convolution descriptors (and hipfuse's TF32 permission on them).
#include "api/boundary.h"
#include "api/convert.h"
#include "api/objects.h"

#include <hipfuse/hipfuse.h>

#include <limits>

using namespace hipfuse;
using namespace hipfuse::api;

namespace {

ConvDesc geometry(ConvDesc desc, int spatial_dims, const int* pads, const int* strides, const int* dilations) {
  desc.pads.assign(pads, pads + spatial_dims);
  desc.strides.assign(strides, strides + spatial_dims);
  desc.dilations.assign(dilations, dilations + spatial_dims);
  for (int d = 0; d < spatial_dims; ++d) {
    if (pads[d] < 0) fail(Status::bad_parm, "padding " + std::to_string(pads[d]) + " is negative");
    if (strides[d] < 1) fail(Status::bad_parm, "stride " + std::to_string(strides[d]) + " is below 1");
    if (dilations[d] < 1) fail(Status::bad_parm, "dilation " + std::to_string(dilations[d]) + " is below 1");
  }
  return desc;
}

TensorDesc forward_output(miopenConvolutionDescriptor_t convDesc, miopenTensorDescriptor_t x,
                          miopenTensorDescriptor_t w) {
  const auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
  const auto& in = checked_cast<TensorObject>(x, "inputTensorDesc").desc;
  const auto& filter = checked_cast<TensorObject>(w, "filterDesc").desc;
  return conv.forward_output(in, filter);
}

int to_int(std::int64_t value) {
  if (value > std::numeric_limits<int>::max()) {
    fail(Status::bad_parm, "output length " + std::to_string(value) + " does not fit in an int");
  }
  return static_cast<int>(value);
}

}  // namespace

extern "C" {

miopenStatus_t miopenCreateConvolutionDescriptor(miopenConvolutionDescriptor_t* convDesc) {
  return guarded(__func__, [&] {
    auto& out = out_param(convDesc, "convDesc");  // before allocating: a null output must not leak
    out = new ConvolutionObject();
  });
}

miopenStatus_t miopenInitConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc, miopenConvolutionMode_t c_mode,
                                               int pad_h, int pad_w, int stride_h, int stride_w, int dilation_h,
                                               int dilation_w) {
  return guarded(__func__, [&] {
    auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc");
    ConvDesc desc = conv.desc;
    desc.mode = to_conv_mode(c_mode);
    const int pads[] = {pad_h, pad_w}, strides[] = {stride_h, stride_w}, dilations[] = {dilation_h, dilation_w};
    conv.desc = geometry(desc, 2, pads, strides, dilations);
  });
}

miopenStatus_t miopenInitConvolutionNdDescriptor(miopenConvolutionDescriptor_t convDesc, int spatialDim,
                                                 const int* padA, const int* strideA, const int* dilationA,
                                                 miopenConvolutionMode_t c_mode) {
  return guarded(__func__, [&] {
    auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc");
    if (padA == nullptr || strideA == nullptr || dilationA == nullptr) {
      fail(Status::bad_parm, "padA, strideA and dilationA must not be null");
    }
    if (spatialDim != 2 && spatialDim != 3) {
      fail(Status::bad_parm, "spatialDim is " + std::to_string(spatialDim) + " (hipfuse supports 2 and 3)");
    }
    ConvDesc desc = conv.desc;
    desc.mode = to_conv_mode(c_mode);
    conv.desc = geometry(desc, spatialDim, padA, strideA, dilationA);
  });
}

miopenStatus_t miopenGetConvolutionSpatialDim(miopenConvolutionDescriptor_t convDesc, int* spatialDim) {
  return guarded(__func__, [&] {
    const auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
    out_param(spatialDim, "spatialDim") = conv.spatial_dims();
  });
}

miopenStatus_t miopenGetConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc, miopenConvolutionMode_t* c_mode,
                                              int* pad_h, int* pad_w, int* stride_h, int* stride_w, int* dilation_h,
                                              int* dilation_w) {
  return guarded(__func__, [&] {
    const auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
    auto& mode = out_param(c_mode, "c_mode");
    int* outs[] = {pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w};
    const char* names[] = {"pad_h", "pad_w", "stride_h", "stride_w", "dilation_h", "dilation_w"};
    for (int i = 0; i < 6; ++i) out_param(outs[i], names[i]);
    if (conv.spatial_dims() != 2) {
      fail(Status::bad_parm, "the convolution is " + std::to_string(conv.spatial_dims()) +
                                 "-D; use miopenGetConvolutionNdDescriptor");
    }
    mode = static_cast<miopenConvolutionMode_t>(conv.mode);
    *pad_h = conv.pads[0], *pad_w = conv.pads[1];
    *stride_h = conv.strides[0], *stride_w = conv.strides[1];
    *dilation_h = conv.dilations[0], *dilation_w = conv.dilations[1];
  });
}

miopenStatus_t miopenGetConvolutionNdDescriptor(miopenConvolutionDescriptor_t convDesc, int requestedSpatialDim,
                                                int* spatialDim, int* padA, int* strideA, int* dilationA,
                                                miopenConvolutionMode_t* c_mode) {
  return guarded(__func__, [&] {
    const auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
    auto& dims = out_param(spatialDim, "spatialDim");
    auto& mode = out_param(c_mode, "c_mode");
    out_param(padA, "padA"), out_param(strideA, "strideA"), out_param(dilationA, "dilationA");
    // requestedSpatialDim is the capacity of the arrays.
    if (requestedSpatialDim < conv.spatial_dims()) {
      fail(Status::bad_parm, "requestedSpatialDim " + std::to_string(requestedSpatialDim) +
                                 " is smaller than the convolution's " + std::to_string(conv.spatial_dims()) +
                                 " spatial dimensions");
    }
    std::copy(conv.pads.begin(), conv.pads.end(), padA);
    std::copy(conv.strides.begin(), conv.strides.end(), strideA);
    std::copy(conv.dilations.begin(), conv.dilations.end(), dilationA);
    dims = conv.spatial_dims();
    mode = static_cast<miopenConvolutionMode_t>(conv.mode);
  });
}

miopenStatus_t miopenSetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc, int groupCount) {
  return guarded(__func__, [&] {
    auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc");
    if (groupCount < 1) fail(Status::bad_parm, "groupCount is " + std::to_string(groupCount) + " (must be >= 1)");
    conv.desc.groups = groupCount;
  });
}

miopenStatus_t miopenGetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc, int* groupCount) {
  return guarded(__func__, [&] {
    const auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
    out_param(groupCount, "groupCount") = conv.groups;
  });
}

miopenStatus_t miopenGetConvolutionForwardOutputDim(miopenConvolutionDescriptor_t convDesc,
                                                    const miopenTensorDescriptor_t inputTensorDesc,
                                                    const miopenTensorDescriptor_t filterDesc, int* n, int* c, int* h,
                                                    int* w) {
  return guarded(__func__, [&] {
    int* outs[] = {n, c, h, w};
    const char* names[] = {"n", "c", "h", "w"};
    for (int i = 0; i < 4; ++i) out_param(outs[i], names[i]);
    if (checked_cast<ConvolutionObject>(convDesc, "convDesc").desc.spatial_dims() != 2) {
      fail(Status::bad_parm, "the convolution is not 2-D; use miopenGetConvolutionNdForwardOutputDim");
    }
    const TensorDesc y = forward_output(convDesc, inputTensorDesc, filterDesc);
    int values[4];
    for (int i = 0; i < 4; ++i) values[i] = to_int(y.lengths[static_cast<std::size_t>(i)]);
    for (int i = 0; i < 4; ++i) *outs[i] = values[i];
  });
}

miopenStatus_t miopenGetConvolutionNdForwardOutputDim(miopenConvolutionDescriptor_t convDesc,
                                                      const miopenTensorDescriptor_t inputTensorDesc,
                                                      const miopenTensorDescriptor_t filterDesc, int* nDim,
                                                      int* outputTensorDimA) {
  return guarded(__func__, [&] {
    auto& dims = out_param(nDim, "nDim");
    out_param(outputTensorDimA, "outputTensorDimA");
    const TensorDesc y = forward_output(convDesc, inputTensorDesc, filterDesc);
    std::vector<int> values;
    for (auto len : y.lengths) values.push_back(to_int(len));
    std::copy(values.begin(), values.end(), outputTensorDimA);
    dims = y.dims();
  });
}

miopenStatus_t miopenSetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                             const miopenConvolutionAttrib_t attr, int value) {
  return guarded(__func__, [&] {
    auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc");
    const auto out_of_range = [&](const char* name, const char* valid) {
      fail(Status::bad_parm, std::string(name) + " value " + std::to_string(value) + " is out of range (" + valid + ")");
    };
    switch (raw_value(attr)) {
      case 0:  // MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL
        if (value < -1 || value > 1) out_of_range("MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL", "-1, 0, 1");
        conv.fp16_alt_impl = value;
        return;
      case 1:  // MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC
        if (value < 0 || value > 1) out_of_range("MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC", "0, 1");
        conv.desc.deterministic = value == 1;
        return;
      case 2:  // MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE (beta API)
        if (value < 0 || value > 1) out_of_range("MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE", "0, 1");
        conv.fp8_rounding_mode = value;
        return;
      default: fail(Status::bad_parm, "unknown convolution attribute " + std::to_string(raw_value(attr)));
    }
  });
}

miopenStatus_t miopenGetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                             const miopenConvolutionAttrib_t attr, int* value) {
  return guarded(__func__, [&] {
    const auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc");
    auto& out = out_param(value, "value");
    switch (raw_value(attr)) {
      case 0: out = conv.fp16_alt_impl; return;
      case 1: out = conv.desc.deterministic ? 1 : 0; return;
      case 2: out = conv.fp8_rounding_mode; return;
      default: fail(Status::bad_parm, "unknown convolution attribute " + std::to_string(raw_value(attr)));
    }
  });
}

miopenStatus_t miopenDestroyConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc) {
  return guarded(__func__, [&] {
    if (convDesc != nullptr) destroy_object(checked_cast<ConvolutionObject>(convDesc, "convDesc"));
  });
}

miopenStatus_t hipfuseSetConvolutionAllowTF32(miopenConvolutionDescriptor_t convDesc, int allow) {
  return guarded(__func__, [&] {
    auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc");
    if (allow != 0 && allow != 1) fail(Status::bad_parm, "allow is " + std::to_string(allow) + " (must be 0 or 1)");
    conv.desc.allow_tf32 = allow == 1;
  });
}

miopenStatus_t hipfuseGetConvolutionAllowTF32(miopenConvolutionDescriptor_t convDesc, int* allow) {
  return guarded(__func__, [&] {
    const auto& conv = checked_cast<ConvolutionObject>(convDesc, "convDesc").desc;
    out_param(allow, "allow") = conv.allow_tf32 ? 1 : 0;
  });
}

}  // extern "C"
