#include "hipfuse/reference/fill.h"

#include <algorithm>
#include <stdexcept>

#include "hipfuse/reference/random.h"

namespace hipfuse::ref {
namespace {

void ensure_nonzero(Tensor& t, double nonzero) {
    if (t.data.empty()) return;
    if (std::all_of(t.data.begin(), t.data.end(), [](double v) { return v == 0.0; })) t.data[0] = nonzero;
}

}  // namespace

void fill_uniform(Tensor& t, double lo, double hi, std::uint64_t seed, DType dtype) {
    if (!(lo <= hi)) throw std::invalid_argument("fill_uniform: lo > hi");
    const double end = round_to(dtype, hi != 0.0 ? hi : lo);
    if (end == 0.0) throw std::invalid_argument("fill_uniform: the range holds no nonzero value");
    SplitMix64 rng(seed);
    for (double& v : t.data) v = round_to(dtype, lo + (hi - lo) * rng.uniform01());
    ensure_nonzero(t, end);
}

void fill_normal(Tensor& t, double mean, double stddev, std::uint64_t seed, DType dtype) {
    if (!(stddev >= 0.0)) throw std::invalid_argument("fill_normal: negative stddev");
    const double end = round_to(dtype, mean != 0.0 ? mean : stddev);
    if (end == 0.0) throw std::invalid_argument("fill_normal: mean and stddev are both zero");
    SplitMix64 rng(seed);
    for (double& v : t.data) {
        double sum = 0.0;
        for (int i = 0; i < 12; ++i) sum += rng.uniform01();
        v = round_to(dtype, mean + stddev * (sum - 6.0));
    }
    ensure_nonzero(t, end);
}

void fill_integers(Tensor& t, int lo, int hi, std::uint64_t seed) {
    if (lo > hi) throw std::invalid_argument("fill_integers: lo > hi");
    if (lo == 0 && hi == 0) throw std::invalid_argument("fill_integers: the range holds no nonzero value");
    const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo + 1);
    SplitMix64 rng(seed);
    for (double& v : t.data) v = static_cast<double>(lo + static_cast<std::int64_t>(rng.below(span)));
    ensure_nonzero(t, static_cast<double>(hi != 0 ? hi : lo));
}

}  // namespace hipfuse::ref
