// Tensor, convolution and activation descriptors through the C API, and the BN
// parameter descriptor: the arithmetic and the round trips.
#include "test_api_support.h"

#include <climits>

using namespace api_test;

namespace {

struct Dims4 {
  miopenDataType_t type{};
  int n = 0, c = 0, h = 0, w = 0, ns = 0, cs = 0, hs = 0, ws = 0;
};

Dims4 get4d(miopenTensorDescriptor_t t) {
  Dims4 d;
  REQUIRE(miopenGet4dTensorDescriptor(t, &d.type, &d.n, &d.c, &d.h, &d.w, &d.ns, &d.cs, &d.hs, &d.ws) ==
          miopenStatusSuccess);
  return d;
}

std::vector<int> strides_of(miopenTensorDescriptor_t t) {
  int size = 0;
  REQUIRE(miopenGetTensorDescriptorSize(t, &size) == miopenStatusSuccess);
  std::vector<int> dims(static_cast<std::size_t>(size)), strides(static_cast<std::size_t>(size));
  miopenDataType_t type{};
  REQUIRE(miopenGetTensorDescriptor(t, &type, dims.data(), strides.data()) == miopenStatusSuccess);
  return strides;
}

const hipfuse::TensorDesc& internal(miopenTensorDescriptor_t t) {
  return static_cast<hipfuse::api::TensorObject*>(t)->desc;
}

size_t num_bytes(miopenTensorDescriptor_t t) {
  size_t bytes = 0;
  REQUIRE(miopenGetTensorNumBytes(t, &bytes) == miopenStatusSuccess);
  return bytes;
}

}  // namespace

TEST_CASE("Set4d is packed NCHW and reads back") {
  Tensor t(miopenHalf, 2, 3, 4, 5);
  const Dims4 d = get4d(t);
  CHECK(d.type == miopenHalf);
  CHECK((d.n == 2 && d.c == 3 && d.h == 4 && d.w == 5));
  CHECK((d.ns == 60 && d.cs == 20 && d.hs == 5 && d.ws == 1));
  CHECK(num_bytes(t) == 240);
  CHECK(internal(t).layout() == hipfuse::Layout::nchw);
}

TEST_CASE("Set4dEx keeps the strides; the layout follows from them") {
  Tensor t;
  // NHWC strides for N=2, C=3, H=4, W=5.
  CHECK_OK(miopenSet4dTensorDescriptorEx(t, miopenFloat, 2, 3, 4, 5, 60, 1, 15, 3));
  const Dims4 d = get4d(t);
  CHECK((d.ns == 60 && d.cs == 1 && d.hs == 15 && d.ws == 3));
  CHECK(internal(t).layout() == hipfuse::Layout::nhwc);
  CHECK(num_bytes(t) == 120 * 4);
  // A padded row pitch: span counts the gaps up to the last element.
  CHECK_OK(miopenSet4dTensorDescriptorEx(t, miopenFloat, 1, 2, 3, 4, 64, 32, 8, 1));
  CHECK(num_bytes(t) == (32 + 2 * 8 + 3 + 1) * 4);
  CHECK(internal(t).layout() == hipfuse::Layout::nchw);
}

TEST_CASE("SetNdTensorDescriptorWithLayout: logical lengths, layout strides") {
  Tensor nhwc(miopenHalf, miopenTensorNHWC, {2, 3, 4, 5});
  CHECK(strides_of(nhwc) == std::vector<int>{60, 1, 15, 3});
  Tensor nchw(miopenHalf, miopenTensorNCHW, {2, 3, 4, 5});
  CHECK(strides_of(nchw) == std::vector<int>{60, 20, 5, 1});
  Tensor ndhwc(miopenBFloat16, miopenTensorNDHWC, {2, 3, 4, 5, 6});
  CHECK(strides_of(ndhwc) == std::vector<int>{360, 1, 90, 18, 3});
  Tensor ncdhw(miopenBFloat16, miopenTensorNCDHW, {2, 3, 4, 5, 6});
  CHECK(strides_of(ncdhw) == std::vector<int>{360, 120, 30, 6, 1});
  Tensor chwn(miopenFloat, miopenTensorCHWN, {2, 3, 4, 5});
  CHECK(strides_of(chwn) == std::vector<int>{1, 40, 10, 2});
  CHECK(num_bytes(ndhwc) == 720 * 2);
}

TEST_CASE("SetTensorDescriptor with and without strides; size and readback") {
  Tensor t;
  const int dims[] = {2, 3, 4};
  CHECK_OK(miopenSetTensorDescriptor(t, miopenInt8, 3, dims, nullptr));
  CHECK(strides_of(t) == std::vector<int>{12, 4, 1});
  CHECK(num_bytes(t) == 24);
  const int strides[] = {1, 2, 6};
  CHECK_OK(miopenSetTensorDescriptor(t, miopenDouble, 3, dims, strides));
  int size = 0;
  CHECK_OK(miopenGetTensorDescriptorSize(t, &size));
  CHECK(size == 3);
  std::vector<int> got_dims(3), got_strides(3);
  miopenDataType_t type{};
  CHECK_OK(miopenGetTensorDescriptor(t, &type, got_dims.data(), got_strides.data()));
  CHECK(type == miopenDouble);
  CHECK(got_dims == std::vector<int>{2, 3, 4});
  CHECK(got_strides == std::vector<int>{1, 2, 6});
  CHECK(num_bytes(t) == 24 * 8);
  const int one[] = {7};
  CHECK_OK(miopenSetTensorDescriptor(t, miopenInt64, 1, one, nullptr));
  CHECK(num_bytes(t) == 56);
}

TEST_CASE("a new tensor descriptor is unset") {
  Tensor t;
  int size = -1;
  CHECK_OK(miopenGetTensorDescriptorSize(t, &size));
  CHECK(size == 0);
  CHECK(num_bytes(t) == 0);
}

TEST_CASE("convolution descriptor round trips") {
  QuietLog quiet;
  Conv c(0, 1, 1);
  miopenConvolutionMode_t mode{};
  int ph = -1, pw = -1, sh = -1, sw = -1, dh = -1, dw = -1;
  CHECK_OK(miopenInitConvolutionDescriptor(c, miopenTranspose, 1, 2, 3, 4, 5, 6));
  CHECK_OK(miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw));
  CHECK(mode == miopenTranspose);
  CHECK((ph == 1 && pw == 2 && sh == 3 && sw == 4 && dh == 5 && dw == 6));
  // Deprecated modes are plain convolutions.
  CHECK_OK(miopenInitConvolutionDescriptor(c, miopenGroupConv, 0, 0, 1, 1, 1, 1));
  CHECK_OK(miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw));
  CHECK(mode == miopenConvolution);

  const int pads[] = {1, 2, 3}, strides[] = {1, 1, 2}, dilations[] = {1, 2, 1};
  CHECK_OK(miopenInitConvolutionNdDescriptor(c, 3, pads, strides, dilations, miopenConvolution));
  int spatial = 0;
  CHECK_OK(miopenGetConvolutionSpatialDim(c, &spatial));
  CHECK(spatial == 3);
  int got_pads[4] = {}, got_strides[4] = {}, got_dil[4] = {};
  CHECK_OK(miopenGetConvolutionNdDescriptor(c, 4, &spatial, got_pads, got_strides, got_dil, &mode));
  CHECK(spatial == 3);
  CHECK((got_pads[2] == 3 && got_strides[2] == 2 && got_dil[1] == 2));
  CHECK_STATUS(miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw), miopenStatusBadParm);

  int groups = 0;
  CHECK_OK(miopenGetConvolutionGroupCount(c, &groups));
  CHECK(groups == 1);
  CHECK_OK(miopenSetConvolutionGroupCount(c, 4));
  CHECK_OK(miopenGetConvolutionGroupCount(c, &groups));
  CHECK(groups == 4);
}

TEST_CASE("a new convolution descriptor is MIOpen's default 2-D one") {
  miopenConvolutionDescriptor_t c = nullptr;
  REQUIRE(miopenCreateConvolutionDescriptor(&c) == miopenStatusSuccess);
  miopenConvolutionMode_t mode{};
  int ph = -1, pw = -1, sh = -1, sw = -1, dh = -1, dw = -1;
  CHECK_OK(miopenGetConvolutionDescriptor(c, &mode, &ph, &pw, &sh, &sw, &dh, &dw));
  CHECK((mode == miopenConvolution && ph == 0 && pw == 0 && sh == 1 && sw == 1 && dh == 1 && dw == 1));
  CHECK_OK(miopenDestroyConvolutionDescriptor(c));
}

TEST_CASE("forward output dimensions: padding, stride, dilation, groups, layouts") {
  struct Case { int c, h, w, k, wc, r, s, pad, stride, dil, groups, oh, ow; };
  const Case cases[] = {
      {3, 32, 32, 16, 3, 3, 3, 1, 1, 1, 1, 32, 32},  {3, 32, 32, 16, 3, 3, 3, 0, 1, 1, 1, 30, 30},
      {3, 32, 32, 16, 3, 3, 3, 1, 2, 1, 1, 16, 16},  {3, 32, 30, 16, 3, 5, 5, 2, 2, 1, 1, 16, 15},
      {3, 32, 32, 16, 3, 3, 3, 2, 1, 2, 1, 32, 32},  {8, 14, 14, 8, 1, 3, 3, 1, 1, 1, 8, 14, 14},
      {8, 14, 14, 16, 4, 1, 1, 0, 1, 1, 2, 14, 14},  {64, 56, 56, 256, 64, 1, 1, 0, 1, 1, 1, 56, 56},
      {3, 224, 224, 64, 3, 7, 7, 3, 2, 1, 1, 112, 112}, {4, 5, 5, 2, 4, 7, 7, 0, 1, 1, 1, 1, 1},
  };
  for (const auto& k : cases) {
    CAPTURE(k.c);
    CAPTURE(k.groups);
    CAPTURE(k.stride);
    CAPTURE(k.dil);
    Conv conv(k.pad, k.stride, k.dil);
    REQUIRE(miopenSetConvolutionGroupCount(conv, k.groups) == miopenStatusSuccess);
    Tensor x(miopenFloat, 2, k.c, k.h, k.w);
    Tensor w(miopenFloat, k.k, k.wc, k.r, k.s);
    int n = 0, c = 0, h = 0, wd = 0;
    CHECK_OK(miopenGetConvolutionForwardOutputDim(conv, x, w, &n, &c, &h, &wd));
    CHECK((n == 2 && c == k.k && h == k.oh && wd == k.ow));
    int dims = 0, out[5] = {};
    CHECK_OK(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &dims, out));
    CHECK((dims == 4 && out[0] == 2 && out[1] == k.k && out[2] == k.oh && out[3] == k.ow));
  }
}

TEST_CASE("forward output of a 3-D convolution and of NHWC tensors") {
  QuietLog quiet;
  Conv conv;
  const int pads[] = {1, 1, 1}, strides[] = {2, 2, 2}, dil[] = {1, 1, 1};
  REQUIRE(miopenInitConvolutionNdDescriptor(conv, 3, pads, strides, dil, miopenConvolution) == miopenStatusSuccess);
  Tensor x(miopenHalf, miopenTensorNDHWC, {1, 4, 8, 16, 16});
  Tensor w(miopenHalf, miopenTensorNDHWC, {8, 4, 3, 3, 3});
  int dims = 0, out[5] = {};
  CHECK_OK(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &dims, out));
  CHECK(dims == 5);
  CHECK((out[1] == 8 && out[2] == 4 && out[3] == 8 && out[4] == 8));
  int n, c, h, wd;
  CHECK_STATUS(miopenGetConvolutionForwardOutputDim(conv, x, w, &n, &c, &h, &wd), miopenStatusBadParm);

  Conv conv2;
  Tensor xh(miopenHalf, miopenTensorNHWC, {2, 16, 9, 9});
  Tensor wh(miopenHalf, miopenTensorNHWC, {32, 16, 3, 3});
  CHECK_OK(miopenGetConvolutionForwardOutputDim(conv2, xh, wh, &n, &c, &h, &wd));
  CHECK((n == 2 && c == 32 && h == 9 && wd == 9));
}

TEST_CASE("forward output dimension errors carry the reason") {
  QuietLog quiet;
  Conv conv;
  Tensor x(miopenFloat, 1, 4, 8, 8);
  int n, c, h, w;
  Tensor wrong_c(miopenFloat, 8, 3, 3, 3);
  CHECK_STATUS(miopenGetConvolutionForwardOutputDim(conv, x, wrong_c, &n, &c, &h, &w), miopenStatusBadParm);
  CHECK(last_error().find("Channels do not match for the filter") != std::string::npos);
  Tensor wrong_type(miopenHalf, 8, 4, 3, 3);
  CHECK_STATUS(miopenGetConvolutionForwardOutputDim(conv, x, wrong_type, &n, &c, &h, &w), miopenStatusBadParm);
  CHECK(last_error().find("types differ") != std::string::npos);
  REQUIRE(miopenSetConvolutionGroupCount(conv, 3) == miopenStatusSuccess);
  Tensor w4(miopenFloat, 8, 4, 3, 3);
  CHECK_STATUS(miopenGetConvolutionForwardOutputDim(conv, x, w4, &n, &c, &h, &w), miopenStatusBadParm);
}

TEST_CASE("convolution attributes and the TF32 permission") {
  QuietLog quiet;
  Conv conv;
  int value = 7;
  CHECK_OK(miopenGetConvolutionAttribute(conv, MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, &value));
  CHECK(value == -1);
  CHECK_OK(miopenSetConvolutionAttribute(conv, MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, 1));
  CHECK_OK(miopenGetConvolutionAttribute(conv, MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, &value));
  CHECK(value == 1);
  CHECK_OK(miopenGetConvolutionAttribute(conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, &value));
  CHECK(value == 0);
  CHECK_OK(miopenSetConvolutionAttribute(conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1));
  CHECK_OK(miopenGetConvolutionAttribute(conv, MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, &value));
  CHECK(value == 1);
  CHECK(static_cast<hipfuse::api::ConvolutionObject*>(conv.d)->desc.deterministic);
  const auto fp8 = enum_value<miopenConvolutionAttrib_t>(2);
  CHECK_OK(miopenSetConvolutionAttribute(conv, fp8, 1));
  CHECK_OK(miopenGetConvolutionAttribute(conv, fp8, &value));
  CHECK(value == 1);

  CHECK_OK(hipfuseGetConvolutionAllowTF32(conv, &value));
  CHECK(value == 0);
  CHECK_OK(hipfuseSetConvolutionAllowTF32(conv, 1));
  CHECK_OK(hipfuseGetConvolutionAllowTF32(conv, &value));
  CHECK(value == 1);
  CHECK(static_cast<hipfuse::api::ConvolutionObject*>(conv.d)->desc.allow_tf32);
}

TEST_CASE("activation descriptor round trip") {
  Activation a;
  miopenActivationMode_t mode{};
  double alpha = -1, beta = -1, gamma = -1;
  CHECK_OK(miopenGetActivationDescriptor(a, &mode, &alpha, &beta, &gamma));
  CHECK(mode == miopenActivationRELU);
  CHECK_OK(miopenSetActivationDescriptor(a, miopenActivationPOWER, 0.5, 2.0, 3.0));
  CHECK_OK(miopenGetActivationDescriptor(a, &mode, &alpha, &beta, &gamma));
  CHECK((mode == miopenActivationPOWER && alpha == 0.5 && beta == 2.0 && gamma == 3.0));
  for (int m = 0; m <= 9; ++m) CHECK_OK(miopenSetActivationDescriptor(a, static_cast<miopenActivationMode_t>(m), 0, 0, 0));
}

TEST_CASE("miopenDeriveBNTensorDescriptor: both modes, 4-D and 5-D, always fp32 packed") {
  Tensor bn;
  Tensor x(miopenHalf, miopenTensorNHWC, {2, 6, 4, 5});
  CHECK_OK(miopenDeriveBNTensorDescriptor(bn, x, miopenBNSpatial));
  Dims4 d = get4d(bn);
  CHECK((d.type == miopenFloat && d.n == 1 && d.c == 6 && d.h == 1 && d.w == 1));
  CHECK_OK(miopenDeriveBNTensorDescriptor(bn, x, miopenBNPerActivation));
  d = get4d(bn);
  CHECK((d.type == miopenFloat && d.n == 1 && d.c == 6 && d.h == 4 && d.w == 5));
  CHECK((d.ns == 120 && d.cs == 20 && d.hs == 5 && d.ws == 1));
  Tensor x5(miopenBFloat16, miopenTensorNCDHW, {2, 3, 4, 5, 6});
  CHECK_OK(miopenDeriveBNTensorDescriptor(bn, x5, miopenBNSpatial));
  CHECK(internal(bn) == hipfuse::TensorDesc::packed(hipfuse::DataType::float32, {1, 3, 1, 1, 1}, hipfuse::Layout::nchw));
  CHECK_OK(miopenDeriveBNTensorDescriptor(bn, x5, miopenBNPerActivation));
  CHECK(internal(bn) == hipfuse::TensorDesc::packed(hipfuse::DataType::float32, {1, 3, 4, 5, 6}, hipfuse::Layout::nchw));
  // The derived descriptor is what a BN inference op accepts.
  Plan plan(x);
  miopenFusionOpDescriptor_t op = nullptr;
  CHECK_OK(miopenDeriveBNTensorDescriptor(bn, x, miopenBNPerActivation));
  CHECK_OK(miopenCreateOpBatchNormInference(plan, &op, miopenBNPerActivation, bn));
  CHECK_OK(miopenDeriveBNTensorDescriptor(bn, x, miopenBNSpatial));
  CHECK_OK(miopenCreateOpBatchNormInference(plan, &op, miopenBNSpatial, bn));
}

TEST_CASE("descriptors too large for 64-bit sizes and output sizes past int are BadParm") {
  QuietLog quiet;
  Tensor t;
  CHECK_STATUS(miopenSet4dTensorDescriptor(t, miopenFloat, 65536, 65536, 65536, 65536), miopenStatusBadParm);
  CHECK(last_error().find("tensor too large") != std::string::npos);
  CHECK_STATUS(miopenSet4dTensorDescriptorEx(t, miopenFloat, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX,
                                             INT_MAX, INT_MAX),
               miopenStatusBadParm);
  const int dims[8] = {1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024};
  CHECK_STATUS(miopenSetTensorDescriptor(t, miopenHalf, 8, dims, nullptr), miopenStatusBadParm);
  const int chwn[4] = {INT_MAX, INT_MAX, INT_MAX, INT_MAX};
  CHECK_STATUS(miopenSetNdTensorDescriptorWithLayout(t, miopenFloat, miopenTensorCHWN, chwn, 4), miopenStatusBadParm);
  CHECK_OK(miopenSet4dTensorDescriptor(t, miopenFloat, 65536, 65536, 65536, 1));
  size_t bytes = 0;
  CHECK_OK(miopenGetTensorNumBytes(t, &bytes));
  CHECK(bytes == (size_t{1} << 50));

  Tensor x(miopenFloat, 1, 1, 8, 8), w(miopenFloat, 1, 1, 3, 3);
  Conv conv;
  CHECK_OK(miopenInitConvolutionDescriptor(conv, miopenConvolution, INT_MAX, 0, 1, 1, 1, 1));
  int n = 0, c = 0, h = 0, wd = 0;
  CHECK_STATUS(miopenGetConvolutionForwardOutputDim(conv, x, w, &n, &c, &h, &wd), miopenStatusBadParm);
  CHECK(last_error().find("does not fit in an int") != std::string::npos);
  int dims_out = 0, out[4] = {};
  CHECK_STATUS(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &dims_out, out), miopenStatusBadParm);
}
