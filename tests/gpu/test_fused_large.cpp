// A pointwise chain and BN forward training over a tensor of more than 2^31 elements (64-bit
// indexing), on the 16-byte path (NCHW, W a multiple of 8) and the scalar path (NHWC, C = 2).
// The data is a closed-form pattern exact in fp16, so every element is checked without a
// double-precision reference of 17 GB. Runs only where the GPU has 40 GB free.
#include "gpu/test_fused_support.h"

#include <cmath>
#include <cstdint>
#include <vector>

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

// BN forward training (spatial, scale 1, bias 0, no epilogue) over the pattern: the batch
// statistics per channel come from a histogram of the pattern values, so y is known per
// (channel, value) up to the kernel's fp32 arithmetic and the fp16 rounding.
void run_large_bn(const TensorDesc& x) {
  REQUIRE(x.element_count() > (std::int64_t{1} << 31));
  auto plan = PlanBuilder(x, x.strides[1] == 1 ? Lay::nhwc : Lay::nchw).bn_train(BatchNormMode::spatial, false).take();
  plan->compile(device_target());

  const std::int64_t n = x.element_count(), channels = x.lengths[1];
  const std::int64_t spatial = n / (x.lengths[0] * channels);
  const bool channels_last = x.strides[1] == 1;
  auto channel_of = [&](std::int64_t i) { return channels_last ? i % channels : (i / spatial) % channels; };
  const std::size_t bytes = static_cast<std::size_t>(n) * 2;
  std::vector<std::uint16_t> input_bits(kPatternValues);
  for (int k = 0; k < kPatternValues; ++k) input_bits[static_cast<std::size_t>(k)] = fp16_bits(value_of(k));
  std::vector<std::int64_t> histogram(static_cast<std::size_t>(channels * kPatternValues), 0);
  std::vector<std::uint16_t> host(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const int k = pattern(static_cast<std::uint64_t>(i));
    host[static_cast<std::size_t>(i)] = input_bits[static_cast<std::size_t>(k)];
    ++histogram[static_cast<std::size_t>(channel_of(i) * kPatternValues + k)];
  }
  const double epsilon = 1e-5;
  std::vector<double> mean(static_cast<std::size_t>(channels)), inv_std(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) {
    double count = 0, sum = 0, sq = 0;
    for (int k = 0; k < kPatternValues; ++k) {
      const double h = static_cast<double>(histogram[static_cast<std::size_t>(c * kPatternValues + k)]);
      count += h;
      sum += h * value_of(k);
    }
    const double m = sum / count;
    for (int k = 0; k < kPatternValues; ++k) {
      const double d = value_of(k) - m;
      sq += static_cast<double>(histogram[static_cast<std::size_t>(c * kPatternValues + k)]) * d * d;
    }
    mean[static_cast<std::size_t>(c)] = m;
    inv_std[static_cast<std::size_t>(c)] = 1.0 / std::sqrt(sq / count + epsilon);
  }

  const std::vector<float> ones(static_cast<std::size_t>(channels), 1.0f), zeros(static_cast<std::size_t>(channels), 0.0f);
  const std::size_t param_bytes = static_cast<std::size_t>(channels) * sizeof(float);
  DeviceBuffer dx(bytes), dy(bytes), scale(param_bytes), bias(param_bytes), saved_mean(param_bytes), saved_inv(param_bytes);
  HF_REQUIRE_HIP(hipMemcpy(dx.data(), host.data(), bytes, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemcpy(scale.data(), ones.data(), param_bytes, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemcpy(bias.data(), zeros.data(), param_bytes, hipMemcpyHostToDevice));
  HF_REQUIRE_HIP(hipMemset(dy.data(), 0xFF, bytes));
  OperatorArgs args;
  BatchNormForwardTrainingArgs bn;
  bn.scale = scale.data();
  bn.bias = bias.data();
  bn.saved_mean = saved_mean.data();
  bn.saved_inv_variance = saved_inv.data();
  bn.epsilon = epsilon;
  args.slots = {bn};
  HF_REQUIRE_HIP(plan->invoker().launch(nullptr, dx.data(), dy.data(), args));
  HF_REQUIRE_HIP(hipDeviceSynchronize());
  HF_REQUIRE_HIP(hipMemcpy(host.data(), dy.data(), bytes, hipMemcpyDeviceToHost));
  CHECK(dy.guard_intact());
  std::vector<float> got_mean(static_cast<std::size_t>(channels)), got_inv(static_cast<std::size_t>(channels));
  HF_REQUIRE_HIP(hipMemcpy(got_mean.data(), saved_mean.data(), param_bytes, hipMemcpyDeviceToHost));
  HF_REQUIRE_HIP(hipMemcpy(got_inv.data(), saved_inv.data(), param_bytes, hipMemcpyDeviceToHost));
  for (std::int64_t c = 0; c < channels; ++c) {
    CAPTURE(c);
    CHECK(std::abs(got_mean[static_cast<std::size_t>(c)] - mean[static_cast<std::size_t>(c)]) <= 1e-5);
    CHECK(std::abs(got_inv[static_cast<std::size_t>(c)] - inv_std[static_cast<std::size_t>(c)]) <= 1e-5 * inv_std[static_cast<std::size_t>(c)]);
  }

  // y per (channel, value), and every fp16 bit pattern's value.
  std::vector<double> expected(static_cast<std::size_t>(channels * kPatternValues)), half_value(65536);
  for (std::int64_t c = 0; c < channels; ++c) {
    for (int k = 0; k < kPatternValues; ++k) {
      expected[static_cast<std::size_t>(c * kPatternValues + k)] =
          (value_of(k) - mean[static_cast<std::size_t>(c)]) * inv_std[static_cast<std::size_t>(c)];
    }
  }
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    half_value[b] = ref::decode(ref::DType::f16, &bits);
  }
  // |y| < 2: fp16 spacing there is at most 2^-10; fp32 arithmetic adds far less.
  constexpr double kTolerance = 1.5 * 0.0009765625;
  std::int64_t wrong = 0, first_wrong = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    const double want = expected[static_cast<std::size_t>(channel_of(i) * kPatternValues + pattern(static_cast<std::uint64_t>(i)))];
    const double got = half_value[host[static_cast<std::size_t>(i)]];
    if (!(std::abs(got - want) <= kTolerance) && wrong++ == 0) first_wrong = i;
  }
  CHECK_MESSAGE(wrong == 0, wrong << " wrong elements, first at offset " << first_wrong);
}

}  // namespace

TEST_CASE("fused BN training: more than 2^31 elements, 64-bit plane walk with 16-byte vectors (fp16 NCHW)") {
  if (!enough_memory()) return;
  run_large_bn(packed(DataType::half, {2, 2, 16385, 32768}, Lay::nchw));
}

TEST_CASE("fused BN training: more than 2^31 elements, 64-bit uniform row stride (fp16 NHWC, C = 2)") {
  if (!enough_memory()) return;
  run_large_bn(packed(DataType::half, {2, 2, 16385, 32768}, Lay::nhwc));
}

TEST_CASE("fused pointwise: more than 2^31 elements, 16-byte path (fp16 NCHW)") {
  if (!enough_memory()) return;
  run_large(packed(DataType::half, {1, 2, 32769, 32768}, Lay::nchw));
}

TEST_CASE("fused pointwise: more than 2^31 elements, scalar path (fp16 NHWC, C = 2)") {
  if (!enough_memory()) return;
  run_large(packed(DataType::half, {1, 2, 32769, 32768}, Lay::nhwc));
}
