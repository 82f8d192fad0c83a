// A small, seedable, fully specified random generator and index sampling.
// std::uniform_*_distribution is implementation-defined, so host data would differ between
// standard libraries; everything here is exact integer arithmetic and is identical everywhere.
#pragma once

#include <cstdint>
#include <vector>

namespace hipfuse::ref {

// splitmix64 (Steele, Lea, Flood 2014): every seed, including 0, gives a full-period stream.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Uniform in [0, 1) with 53 random bits.
    double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    // Uniform integer in [0, bound) (bound > 0). The modulo bias is below bound / 2^64.
    std::uint64_t below(std::uint64_t bound) { return next() % bound; }

private:
    std::uint64_t state_;
};

// `count` distinct indices of [0, total), sorted, deterministic for a seed. Indices 0 and
// total - 1 (the tensor's first and last elements, where edge bugs show) are always included
// when count >= 2. count >= total returns every index.
std::vector<std::int64_t> sample_indices(std::int64_t count, std::int64_t total, std::uint64_t seed);

}  // namespace hipfuse::ref
