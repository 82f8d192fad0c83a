// ConvDesc::forward_output: output sizes with padding, stride, dilation, groups and
// transpose; every mismatch reported with its reason.
#include <doctest/doctest.h>

#include "common/error.h"
#include "plan/convolution.h"

#include <cstdint>

using namespace hipfuse;

namespace {

TensorDesc nchw(std::vector<std::int64_t> lengths, DataType type = DataType::float32) {
  return TensorDesc::packed(type, std::move(lengths), lengths.size() == 5 ? Layout::ncdhw : Layout::nchw);
}

ConvDesc conv2d(int pad, int stride, int dilation, int groups = 1) {
  ConvDesc c;
  c.pads = {pad, pad};
  c.strides = {stride, stride};
  c.dilations = {dilation, dilation};
  c.groups = groups;
  return c;
}

std::string error_of(const ConvDesc& c, const TensorDesc& x, const TensorDesc& w) {
  try {
    c.forward_output(x, w);
  } catch (const Error& e) {
    CHECK(e.status() == Status::bad_parm);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("forward output size follows MIOpen's formula") {
  struct Case { int in, k, pad, stride, dil; std::int64_t out; };
  const Case cases[] = {
      {32, 3, 1, 1, 1, 32}, {32, 3, 0, 1, 1, 30}, {32, 3, 1, 2, 1, 16}, {33, 3, 1, 2, 1, 17},
      {32, 3, 2, 1, 2, 32}, {32, 5, 0, 1, 2, 24}, {7, 7, 0, 1, 1, 1},  {56, 1, 0, 1, 1, 56},
      {56, 1, 0, 2, 1, 28}, {224, 7, 3, 2, 1, 112}, {10, 3, 0, 3, 1, 3}, {4, 5, 0, 1, 1, 1},  // filter > input: max(1, ...)
  };
  for (const auto& c : cases) {
    CAPTURE(c.in);
    CAPTURE(c.k);
    CAPTURE(c.pad);
    CAPTURE(c.stride);
    CAPTURE(c.dil);
    auto y = conv2d(c.pad, c.stride, c.dil).forward_output(nchw({2, 3, c.in, c.in}), nchw({8, 3, c.k, c.k}));
    CHECK(y.lengths == std::vector<std::int64_t>{2, 8, c.out, c.out});
    CHECK(y.type == DataType::float32);
    CHECK(y.is_channels_first_packed());
  }
}

TEST_CASE("asymmetric geometry per spatial dimension") {
  ConvDesc c;
  c.pads = {1, 0};
  c.strides = {2, 1};
  c.dilations = {1, 2};
  auto y = c.forward_output(nchw({1, 4, 9, 10}), nchw({6, 4, 3, 3}));
  CHECK(y.lengths == std::vector<std::int64_t>{1, 6, 5, 6});
}

TEST_CASE("grouped and depthwise convolutions") {
  CHECK(conv2d(1, 1, 1, 2).forward_output(nchw({1, 8, 5, 5}), nchw({6, 4, 3, 3})).lengths ==
        std::vector<std::int64_t>{1, 6, 5, 5});
  CHECK(conv2d(1, 1, 1, 8).forward_output(nchw({1, 8, 5, 5}), nchw({8, 1, 3, 3})).lengths ==
        std::vector<std::int64_t>{1, 8, 5, 5});
  CHECK(error_of(conv2d(1, 1, 1, 2), nchw({1, 8, 5, 5}), nchw({6, 8, 3, 3})).find("Channels do not match") !=
        std::string::npos);
  CHECK(error_of(conv2d(1, 1, 1, 2), nchw({1, 8, 5, 5}), nchw({5, 4, 3, 3})).find("group") != std::string::npos);
}

TEST_CASE("3-D convolution") {
  ConvDesc c;
  c.pads = {1, 1, 1};
  c.strides = {1, 2, 2};
  c.dilations = {1, 1, 1};
  auto y = c.forward_output(nchw({2, 4, 8, 16, 16}), nchw({8, 4, 3, 3, 3}));
  CHECK(y.lengths == std::vector<std::int64_t>{2, 8, 8, 8, 8});
  CHECK(y.layout() == Layout::ncdhw);
}

TEST_CASE("the output is laid out like the input") {
  auto x = TensorDesc::packed(DataType::half, {2, 16, 8, 8}, Layout::nhwc);
  auto w = TensorDesc::packed(DataType::half, {32, 16, 3, 3}, Layout::nhwc);
  auto y = conv2d(1, 1, 1).forward_output(x, w);
  CHECK(y == TensorDesc::packed(DataType::half, {2, 32, 8, 8}, Layout::nhwc));
}

TEST_CASE("transpose convolution output") {
  ConvDesc c = conv2d(1, 2, 1);
  c.mode = ConvMode::transpose;
  // Weights are C x K/groups x filter: out = s(in-1) + d(k-1) + 1 - 2p.
  auto y = c.forward_output(nchw({1, 8, 5, 5}), nchw({8, 4, 3, 3}));
  CHECK(y.lengths == std::vector<std::int64_t>{1, 4, 9, 9});
  CHECK(error_of(c, nchw({1, 8, 5, 5}), nchw({4, 4, 3, 3})).find("Channels do not match") != std::string::npos);
}

TEST_CASE("every mismatch is a bad parameter with its reason") {
  const auto x = nchw({1, 4, 8, 8});
  const auto w = nchw({8, 4, 3, 3});
  CHECK(error_of(conv2d(1, 1, 1), x, nchw({8, 3, 3, 3})).find("Channels do not match for the filter") !=
        std::string::npos);
  CHECK(error_of(conv2d(1, 1, 1), x, nchw({8, 4, 3, 3}, DataType::half)).find("types differ") != std::string::npos);
  CHECK(error_of(conv2d(1, 1, 1), nchw({1, 4, 8, 8, 8}), w).find("4-D input") != std::string::npos);
  CHECK(error_of(conv2d(1, 1, 1), x, nchw({8, 4, 3, 3, 3})).find("4-D weights") != std::string::npos);
  CHECK(error_of(conv2d(-1, 1, 1), x, w).find("pads") != std::string::npos);
  CHECK(error_of(conv2d(0, 0, 1), x, w).find("strides") != std::string::npos);
  CHECK(error_of(conv2d(0, 1, 0), x, w).find("dilations") != std::string::npos);
  CHECK(error_of(conv2d(0, 1, 1, 0), x, w).find("group") != std::string::npos);
  ConvDesc empty;
  empty.pads.clear();
  CHECK(error_of(empty, x, w).find("not initialised") != std::string::npos);
  CHECK(error_of(conv2d(0, 1, 1), TensorDesc{}, w).find("input") != std::string::npos);
}

TEST_CASE("a freshly made descriptor is MIOpen's default 2-D convolution") {
  ConvDesc c;
  CHECK(c.spatial_dims() == 2);
  CHECK(c.pads == std::vector<int>{0, 0});
  CHECK(c.strides == std::vector<int>{1, 1});
  CHECK(c.dilations == std::vector<int>{1, 1});
  CHECK(c.groups == 1);
  CHECK_FALSE(c.allow_tf32);
  CHECK(c.to_string() == "conv pad 0x0 stride 1x1 dil 1x1 g 1");
}

TEST_CASE("huge paddings and dilations give exact 64-bit sizes") {
  ConvDesc c = conv2d(0, 1, 1);
  c.pads = {INT32_MAX, 0};
  auto y = c.forward_output(nchw({1, 1, 8, 8}), nchw({1, 1, 3, 3}));
  CHECK(y.lengths[2] == 8 + std::int64_t{2} * INT32_MAX - 2);
  CHECK(y.lengths[3] == 6);
  c.pads = {0, 1 << 29};
  y = c.forward_output(nchw({1, 1, 8, 8}), nchw({1, 1, 3, 3}));
  CHECK(y.lengths[3] == 1073741830);
  // Both huge: a tensor too large to describe.
  c.pads = {INT32_MAX, INT32_MAX};
  CHECK_THROWS_AS(c.forward_output(nchw({1, 1, 8, 8}), nchw({1, 1, 3, 3})), Error);
  c = conv2d(0, 1, 1);
  c.mode = ConvMode::transpose;
  c.strides = {INT32_MAX, 1};
  c.dilations = {INT32_MAX, 1};
  y = c.forward_output(nchw({1, 1, 8, 8}), nchw({1, 1, 3, 3}));
  CHECK(y.lengths[2] == std::int64_t{INT32_MAX} * 7 + std::int64_t{INT32_MAX} * 2 + 1);
}
