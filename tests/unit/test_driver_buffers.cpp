// fusiondriver: guard regions, poison, buffer rotation, storage images (host side, no GPU).
#include <doctest/doctest.h>

#include <cstring>
#include <set>

#include <hipfuse/reference/dtype.h>

#include "device_buffers.h"
#include "host_data.h"
#include "progress.h"
#include "problem.h"
#include "timing.h"

using namespace hipfuse::driver;
namespace ref = hipfuse::ref;

TEST_CASE("driver guards: the pattern avoids 0x00 and 0xFF and varies with position") {
  std::set<std::uint8_t> seen;
  for (std::size_t i = 0; i < kGuardBytes; ++i) {
    const std::uint8_t b = guard_byte(i);
    CHECK(b != 0x00);
    CHECK(b != 0xFF);
    seen.insert(b);
  }
  CHECK(seen.size() > 64);
  // A shifted copy of the pattern is not the pattern.
  int same = 0;
  for (std::size_t i = 0; i + 1 < 256; ++i) same += guard_byte(i) == guard_byte(i + 1);
  CHECK(same < 16);
}

TEST_CASE("driver guards: check_guard finds every corrupted byte") {
  std::vector<std::uint8_t> g(kGuardBytes);
  fill_guard(g.data(), g.size());
  CHECK(check_guard(g.data(), g.size()).ok());
  g[7] ^= 0x01;
  g[100] = 0;
  const GuardReport r = check_guard(g.data(), g.size());
  CHECK_FALSE(r.ok());
  CHECK(r.corrupted == 2);
  CHECK(r.first == 7);
  CHECK(r.last == 100);
}

TEST_CASE("driver guards: guarded images and poison") {
  const float data[3] = {1.f, 2.f, 3.f};
  const auto img = guarded_image(sizeof data, data, ref::DType::f32);
  REQUIRE(img.size() == 2 * kGuardBytes + sizeof data);
  CHECK(check_guard(img.data(), kGuardBytes).ok());
  CHECK(check_guard(img.data() + kGuardBytes + sizeof data, kGuardBytes).ok());
  CHECK(std::memcmp(img.data() + kGuardBytes, data, sizeof data) == 0);

  const auto poisoned = guarded_image(8, nullptr, ref::DType::f16);
  CHECK(ref::count_poison(ref::DType::f16, poisoned.data() + kGuardBytes, 4) == 4);

  for (ref::DType t : {ref::DType::f32, ref::DType::f16, ref::DType::bf16}) {
    const auto p = poison_image(t, 10);
    CHECK(p.size() == 10 * ref::size_of(t));
    CHECK(ref::count_poison(t, p.data(), 10) == 10);
  }
}

TEST_CASE("driver buffers: rotation keeps the other sets' data beyond 3x L2") {
  const std::size_t l2 = 50u << 20;
  CHECK(buffer_sets_for(200u << 20, l2, 0) == 1);   // already larger than 3x L2
  CHECK(buffer_sets_for(150u << 20, l2, 0) == 1);
  CHECK(buffer_sets_for(100u << 20, l2, 0) == 3);   // 2 other sets = 200 MB >= 150 MB
  CHECK(buffer_sets_for(1u << 20, l2, 0) == 64);    // capped
  CHECK(buffer_sets_for(1u << 20, l2, 5) == 5);     // asked for
  const int n = buffer_sets_for(40u << 20, l2, 0);
  CHECK(static_cast<std::size_t>(n - 1) * (40u << 20) >= 3 * l2);
}

TEST_CASE("driver timing: statistics") {
  const TimingStats s = summarize({5, 1, 3, 2, 4});
  CHECK(s.samples == 5);
  CHECK(s.min_us == 1);
  CHECK(s.median_us == 3);
  CHECK(s.max_us == 5);
  CHECK(s.mean_us == doctest::Approx(3));
  CHECK(summarize({1, 2, 3, 10}).median_us == 2.5);
  CHECK(summarize({}).samples == 0);
}

TEST_CASE("driver storage images: round trip through strides, element access, unwritten count") {
  TensorInfo info;
  info.name = "x";
  info.lengths = {2, 3, 2, 2};
  info.dtype = ref::DType::bf16;
  info.layout = ref::Layout::nhwc;
  info.strides = ref::packed_strides(info.lengths, ref::Layout::nhwc);
  ref::Tensor t = ref::make_tensor(info.lengths);
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = static_cast<double>(i) - 11.5;
  std::vector<std::uint8_t> bytes = to_bytes(t, info);
  CHECK(bytes.size() == 24 * 2);
  CHECK(from_bytes(bytes, info).data == t.data);
  CHECK(element_at(bytes, info, 5) == t[5]);
  CHECK(element_at(bytes, info, 23) == t[23]);
  CHECK(count_unwritten(bytes, info) == 0);
  // Poison the element of logical index 7 in place.
  const std::vector<int64_t> idx = ref::multi_index(info.lengths, 7);
  int64_t off = 0;
  for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * info.strides[d];
  ref::write_poison(info.dtype, bytes.data() + off * 2, 1);
  CHECK(count_unwritten(bytes, info) == 1);
}

TEST_CASE("driver progress: bar text") {
  CHECK(progress_text(0, 4, "a", 80) == "[........................] 0/4 a");
  CHECK(progress_text(2, 4, "case", 80) == "[############............] 2/4 case");
  const std::string cut = progress_text(1, 2, std::string(200, 'x'), 60);
  CHECK(cut.size() <= 60);
  CHECK(cut.substr(cut.size() - 3) == "...");
}
