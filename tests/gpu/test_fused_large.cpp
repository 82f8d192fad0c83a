// A pointwise chain over a tensor of more than 2^31 elements (64-bit indexing), on the
// 16-byte path (NCHW, W a multiple of 8) and the scalar path (NHWC, C = 2). The data is a
// closed-form pattern exact in fp16, so every element is checked without a double-precision
// reference of 17 GB. Runs only where the GPU has 40 GB free.
#include "gpu/test_fused_support.h"

#include <cstdint>

using namespace hipfuse;
using namespace hipfuse::test;

namespace {

constexpr std::size_t kNeedFreeBytes = std::size_t{40} << 30;

bool enough_memory() {
  std::size_t free_bytes = 0, total = 0;
  if (hipMemGetInfo(&free_bytes, &total) != hipSuccess) return false;
  if (free_bytes >= kNeedFreeBytes) return true;
  MESSAGE("skipped: " << (free_bytes >> 30) << " GiB free, the >2^31-element test needs 40");
  return false;
}

// x[i] = k/256 with k = pattern(i) in [-1000, 1000]: exact in fp16, and x + bias[c]
// (bias = c/8 - 1/16) is exact in fp32, so relu(x + bias) rounded to fp16 is known exactly.
// Bit patterns come from tables over k: the host loops touch 2^31 elements twice.
constexpr int kPatternValues = 2001;

int pattern(std::uint64_t i) { return static_cast<int>((i * 2654435761ull) % kPatternValues); }

double value_of(int k) { return static_cast<double>(k - 1000) / 256.0; }

double bias_of(std::int64_t c) { return static_cast<double>(c) / 8.0 - 1.0 / 16.0; }

std::uint16_t fp16_bits(double v) {
  std::uint16_t bits = 0;
  ref::encode(ref::DType::f16, v, &bits);
  return bits;
}

void run_large(const TensorDesc& x) {
  REQUIRE(x.element_count() > (std::int64_t{1} << 31));
  PlanBuilder b(x, Lay::nchw);
  b.bias().act(ActivationMode::relu);
  auto plan = b.take();
  plan->compile(device_target());

  const std::int64_t n = x.element_count(), channels = x.lengths[1];
  const std::size_t bytes = static_cast<std::size_t>(n) * 2;
  std::vector<std::uint16_t> input_bits(kPatternValues), expected_bits(static_cast<std::size_t>(kPatternValues * channels));
  for (int k = 0; k < kPatternValues; ++k) {
    input_bits[static_cast<std::size_t>(k)] = fp16_bits(value_of(k));
    for (std::int64_t c = 0; c < channels; ++c) {
      expected_bits[static_cast<std::size_t>(c * kPatternValues + k)] = fp16_bits(std::max(0.0, value_of(k) + bias_of(c)));
    }
  }
  std::vector<std::uint16_t> host(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = input_bits[static_cast<std::size_t>(pattern(static_cast<std::uint64_t>(i)))];
  std::vector<std::uint16_t> bias(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) bias[static_cast<std::size_t>(c)] = fp16_bits(bias_of(c));

  DeviceBuffer dx(bytes), dy(bytes), db(bias.size() * 2);
  HF_REQUIRE_HIP(hipMemcpy(dx.data(), host.data(), bytes, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemcpy(db.data(), bias.data(), bias.size() * 2, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemset(dy.data(), 0xFF, bytes));
  OperatorArgs args;
  args.slots = {BiasForwardArgs{db.data()}, ActivationForwardArgs{0, 0, 0}};
  HF_REQUIRE_HIP(plan->invoker().launch(nullptr, dx.data(), dy.data(), args));
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  HF_REQUIRE_HIP(hipMemcpy(host.data(), dy.data(), bytes, hipMemcpyDeviceToHost));
  CHECK(dy.guard_intact());

  // The memory order decides the channel of each offset.
  const bool channels_last = x.strides[1] == 1;
  const std::int64_t spatial = n / (x.lengths[0] * channels);
  std::int64_t wrong = 0, first_wrong = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t c = channels_last ? i % channels : (i / spatial) % channels;
    const std::uint16_t expected = expected_bits[static_cast<std::size_t>(c * kPatternValues + pattern(static_cast<std::uint64_t>(i)))];
    if (host[static_cast<std::size_t>(i)] != expected && wrong++ == 0) first_wrong = i;
  }
  CHECK_MESSAGE(wrong == 0, wrong << " wrong elements, first at offset " << first_wrong);
}

}  // namespace

TEST_CASE("fused pointwise: more than 2^31 elements, 16-byte path (fp16 NCHW)") {
  if (!enough_memory()) return;
  run_large(packed(DataType::half, {1, 2, 32769, 32768}, Lay::nchw));
}

TEST_CASE("fused pointwise: more than 2^31 elements, scalar path (fp16 NHWC, C = 2)") {
  if (!enough_memory()) return;
  run_large(packed(DataType::half, {1, 2, 32769, 32768}, Lay::nhwc));
}
