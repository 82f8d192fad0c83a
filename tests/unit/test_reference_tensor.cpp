// Logical tensors, strided storage (NCHW / NHWC / padded) and index helpers of the CPU reference.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "hipfuse/reference/fill.h"
#include "hipfuse/reference/tensor.h"

using namespace hipfuse::ref;

using Lengths = std::vector<std::int64_t>;

TEST_CASE("reference tensor: packed strides") {
    CHECK(packed_strides({2, 3, 4, 5}, Layout::nchw) == Lengths{60, 20, 5, 1});
    CHECK(packed_strides({2, 3, 4, 5}, Layout::nhwc) == Lengths{60, 1, 15, 3});         // {H*W*C, 1, W*C, C}
    CHECK(packed_strides({2, 3, 4, 5, 6}, Layout::nhwc) == Lengths{360, 1, 90, 18, 3});  // NDHWC
    CHECK(packed_strides({2, 3, 4}, Layout::nhwc) == Lengths{12, 1, 3});                 // NWC
    CHECK(packed_strides({2, 3, 4}, Layout::nchw) == Lengths{12, 4, 1});
    CHECK(storage_elements({2, 3, 4, 5}, {60, 1, 15, 3}) == 120);
    CHECK(storage_elements({2, 3, 4, 5}, {100, 25, 5, 1}) == 100 + 2 * 25 + 3 * 5 + 4 + 1);
}

TEST_CASE("reference tensor: NHWC and NCHW storage hold the same logical tensor") {
    Tensor t = make_tensor({2, 3, 4, 5});
    fill_integers(t, -100, 100, 7);
    const Lengths nchw = packed_strides(t.lengths, Layout::nchw);
    const Lengths nhwc = packed_strides(t.lengths, Layout::nhwc);
    std::vector<float> a(120), b(120);
    to_storage(t, DType::f32, nchw, a.data());
    to_storage(t, DType::f32, nhwc, b.data());
    // NCHW storage is the logical order itself.
    for (std::size_t i = 0; i < 120; ++i) CHECK(a[i] == static_cast<float>(t.data[i]));
    // Element (n=1, c=2, h=3, w=4) sits at 1*60 + 2*1 + 3*15 + 4*3 = 119 in NHWC.
    CHECK(b[119] == static_cast<float>(t.data[static_cast<std::size_t>(linear_index(t.lengths, {1, 2, 3, 4}))]));
    // Element (n=0, c=1, h=0, w=0) is the second channel of the first pixel: offset 1.
    CHECK(b[1] == static_cast<float>(t.data[20]));
    const Tensor back_nchw = from_storage(a.data(), DType::f32, t.lengths, nchw);
    const Tensor back_nhwc = from_storage(b.data(), DType::f32, t.lengths, nhwc);
    CHECK(back_nchw.lengths == t.lengths);
    CHECK(back_nchw.data == t.data);
    CHECK(back_nhwc.data == t.data);
}

TEST_CASE("reference tensor: 5-D channels-last round trip in fp16 and bf16") {
    for (const DType dt : {DType::f16, DType::bf16}) {
        Tensor t = make_tensor({2, 3, 2, 3, 4});
        fill_uniform(t, -2, 2, 11, dt);
        const Lengths strides = packed_strides(t.lengths, Layout::nhwc);
        std::vector<std::uint16_t> buf(static_cast<std::size_t>(t.numel()));
        to_storage(t, dt, strides, buf.data());
        CHECK(from_storage(buf.data(), dt, t.lengths, strides).data == t.data);
    }
}

TEST_CASE("reference tensor: padded strides leave the gaps untouched") {
    Tensor t = make_tensor({2, 3, 4, 5});
    fill_integers(t, 1, 9, 3);
    const Lengths strides{100, 25, 6, 1};  // rows padded to 6, channels to 25, images to 100
    const std::int64_t size = storage_elements(t.lengths, strides);
    std::vector<std::uint16_t> buf(static_cast<std::size_t>(size));
    write_poison(DType::f16, buf.data(), size);
    to_storage(t, DType::f16, strides, buf.data());
    CHECK(count_poison(DType::f16, buf.data(), size) == size - t.numel());
    CHECK(from_storage(buf.data(), DType::f16, t.lengths, strides).data == t.data);
}

TEST_CASE("reference tensor: storage rounds to the dtype") {
    Tensor t = make_tensor({1, 1, 1, 2});
    t.data = {1.0 / 3.0, 70000.0};
    std::vector<std::uint16_t> buf(2);
    to_storage(t, DType::f16, {2, 2, 2, 1}, buf.data());
    CHECK(buf[0] == 0x3555);
    CHECK(buf[1] == 0x7C00);  // overflow to inf
}

TEST_CASE("reference tensor: index helpers and validation") {
    const Lengths l{2, 3, 4, 5};
    CHECK(linear_index(l, {1, 2, 3, 4}) == 119);
    CHECK(multi_index(l, 119) == Lengths{1, 2, 3, 4});
    for (std::int64_t i = 0; i < 120; i += 7) CHECK(linear_index(l, multi_index(l, i)) == i);
    CHECK(element_count({2, 3, 4}) == 24);
    CHECK(spatial_size({2, 3, 4, 5}) == 20);
    CHECK_THROWS_AS(element_count({2, -1}), std::invalid_argument);
    CHECK_THROWS_AS(linear_index(l, {2, 0, 0, 0}), std::out_of_range);
    std::vector<float> buf(120);
    CHECK_THROWS_AS(to_storage(make_tensor(l), DType::f32, {1, 2, 3}, buf.data()), std::invalid_argument);
    Tensor r = make_tensor({1, 1, 1, 1}, 1.0 / 3.0);
    round_all(r, DType::bf16);
    CHECK(r.data[0] == 0.333984375);  // bf16(1/3) = 0x3EAB = 171 * 2^-9
}
