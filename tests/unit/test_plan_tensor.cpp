// TensorDesc: packed strides per layout, span and bytes, packedness, layout inference,
// the text used in messages and plan keys.
#include <doctest/doctest.h>

#include "common/error.h"
#include "plan/tensor.h"

#include <cstdint>

using namespace hipfuse;

namespace {
TensorDesc strided(DataType type, std::vector<std::int64_t> lengths, std::vector<std::int64_t> strides) {
  TensorDesc t;
  t.type = type;
  t.lengths = std::move(lengths);
  t.strides = std::move(strides);
  return t;
}
}  // namespace

TEST_CASE("packed strides for every layout") {
  CHECK(TensorDesc::packed(DataType::float32, {2, 3, 4, 5}, Layout::nchw).strides == std::vector<std::int64_t>{60, 20, 5, 1});
  CHECK(TensorDesc::packed(DataType::float32, {2, 3, 4, 5}, Layout::nhwc).strides == std::vector<std::int64_t>{60, 1, 15, 3});
  CHECK(TensorDesc::packed(DataType::half, {2, 3, 4, 5, 6}, Layout::ncdhw).strides ==
        std::vector<std::int64_t>{360, 120, 30, 6, 1});
  CHECK(TensorDesc::packed(DataType::half, {2, 3, 4, 5, 6}, Layout::ndhwc).strides ==
        std::vector<std::int64_t>{360, 1, 90, 18, 3});
  CHECK_THROWS_AS(TensorDesc::packed(DataType::half, {2, 3}, Layout::nhwc), Error);
}

TEST_CASE("element sizes and names of every data type") {
  CHECK(size_of(DataType::half) == 2);
  CHECK(size_of(DataType::float32) == 4);
  CHECK(size_of(DataType::int32) == 4);
  CHECK(size_of(DataType::int8) == 1);
  CHECK(size_of(DataType::bfloat16) == 2);
  CHECK(size_of(DataType::float64) == 8);
  CHECK(size_of(DataType::float8) == 1);
  CHECK(size_of(DataType::bfloat8) == 1);
  CHECK(size_of(DataType::int64) == 8);
  CHECK(std::string(name_of(DataType::bfloat16)) == "bf16");
  CHECK_FALSE(is_valid(static_cast<DataType>(4)));
  CHECK_FALSE(is_valid(static_cast<DataType>(10)));
}

TEST_CASE("element count, span and bytes") {
  auto t = TensorDesc::packed(DataType::half, {2, 3, 4, 5}, Layout::nchw);
  CHECK(t.element_count() == 120);
  CHECK(t.span() == 120);
  CHECK(t.bytes() == 240);
  // A padded row: W stride 1, H stride 8 for W = 5.
  auto padded = strided(DataType::float32, {1, 1, 4, 5}, {32, 32, 8, 1});
  CHECK(padded.element_count() == 20);
  CHECK(padded.span() == 3 * 8 + 4 + 1);
  CHECK(padded.bytes() == 29 * 4);
  CHECK(TensorDesc{}.element_count() == 0);
  CHECK(TensorDesc{}.span() == 0);
}

TEST_CASE("packedness in any dimension order") {
  CHECK(TensorDesc::packed(DataType::float32, {2, 3, 4, 5}, Layout::nhwc).is_packed());
  CHECK(strided(DataType::float32, {2, 3, 4, 5}, {1, 40, 10, 2}).is_packed());  // CHWN
  CHECK_FALSE(strided(DataType::float32, {1, 1, 4, 5}, {32, 32, 8, 1}).is_packed());
  CHECK_FALSE(strided(DataType::float32, {2, 2}, {1, 1}).is_packed());  // overlapping
  CHECK_FALSE(TensorDesc{}.is_packed());
  // Lengths of 1 address nothing, so their strides do not matter.
  CHECK(strided(DataType::float32, {1, 8, 1, 1}, {99, 1, 7, 3}).is_packed());
}

TEST_CASE("channels-last and channels-first detection and layout inference") {
  auto nchw = TensorDesc::packed(DataType::float32, {2, 3, 4, 5}, Layout::nchw);
  auto nhwc = TensorDesc::packed(DataType::float32, {2, 3, 4, 5}, Layout::nhwc);
  CHECK(nchw.is_channels_first_packed());
  CHECK_FALSE(nchw.is_channels_last());
  CHECK(nhwc.is_channels_last());
  CHECK_FALSE(nhwc.is_channels_first_packed());
  CHECK(nchw.layout() == Layout::nchw);
  CHECK(nhwc.layout() == Layout::nhwc);
  CHECK(TensorDesc::packed(DataType::float32, {2, 3, 4, 5, 6}, Layout::ndhwc).layout() == Layout::ndhwc);
  CHECK(TensorDesc::packed(DataType::float32, {2, 3, 4, 5, 6}, Layout::ncdhw).layout() == Layout::ncdhw);
  // One channel: the memory is both; the strides the user chose decide.
  auto one_channel_nhwc = TensorDesc::packed(DataType::float32, {2, 1, 4, 5}, Layout::nhwc);
  CHECK(one_channel_nhwc.is_channels_last());
  CHECK(one_channel_nhwc.is_channels_first_packed());
  CHECK(one_channel_nhwc.layout() == Layout::nhwc);
  CHECK(TensorDesc::packed(DataType::float32, {2, 1, 4, 5}, Layout::nchw).layout() == Layout::nchw);
  // Not packed at all: channel-first order by default.
  CHECK(strided(DataType::float32, {1, 1, 4, 5}, {32, 32, 8, 1}).layout() == Layout::nchw);
  // Channels-last with a padded batch stride.
  CHECK(strided(DataType::float32, {2, 3, 4, 5}, {100, 1, 15, 3}).layout() == Layout::nhwc);
}

TEST_CASE("descriptor text names the layout or the strides") {
  CHECK(TensorDesc::packed(DataType::half, {64, 64, 56, 56}, Layout::nhwc).to_string() == "fp16 64x64x56x56 (nhwc)");
  CHECK(TensorDesc::packed(DataType::float32, {1, 3, 8, 8}, Layout::nchw).to_string() == "fp32 1x3x8x8 (nchw)");
  CHECK(TensorDesc::packed(DataType::float32, {1, 3, 2, 8, 8}, Layout::ncdhw).to_string() == "fp32 1x3x2x8x8 (ncdhw)");
  CHECK(strided(DataType::float32, {1, 1, 4, 5}, {32, 32, 8, 1}).to_string() == "fp32 1x1x4x5 (strides 32,32,8,1)");
  CHECK(TensorDesc{}.to_string() == "fp32 (unset)");
}

TEST_CASE("descriptor equality is type, lengths and strides") {
  auto a = TensorDesc::packed(DataType::float32, {1, 3, 8, 8}, Layout::nchw);
  auto b = a;
  CHECK(a == b);
  b.type = DataType::half;
  CHECK(a != b);
  b = a;
  b.lengths[0] = 2;
  CHECK(a != b);
  b = a;
  b.strides[0] = 1000;
  CHECK(a != b);
}

TEST_CASE("tensors too large for 64-bit sizes are refused, not wrapped") {
  const auto refused = [](auto make) {
    try {
      make();
    } catch (const Error& e) {
      return e.status() == Status::bad_parm && std::string(e.what()).find("tensor too large") != std::string::npos;
    }
    return false;
  };
  CHECK(refused([] { TensorDesc::packed(DataType::float32, {65536, 65536, 65536, 65536}, Layout::nchw); }));
  CHECK(refused([] { TensorDesc::packed(DataType::half, {1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024}, Layout::nchw); }));
  CHECK(refused([] { strided(DataType::float32, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}).check_size(); }));
  CHECK(refused([] { strided(DataType::float32, {2, 2}, {std::int64_t{1} << 59, 1}).check_size(); }));
  // Just below the limits: exact.
  auto big = TensorDesc::packed(DataType::float32, {65536, 65536, 65536, 1}, Layout::nchw);
  CHECK(big.bytes() == (std::size_t{1} << 50));
  CHECK(big.element_count() == (std::int64_t{1} << 48));
  CHECK_NOTHROW(strided(DataType::float32, {2, 2}, {(std::int64_t{1} << 59) - 3, 1}).check_size());
}
