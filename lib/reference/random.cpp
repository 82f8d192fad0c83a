#include "hipfuse/reference/random.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

namespace hipfuse::ref {

std::vector<std::int64_t> sample_indices(std::int64_t count, std::int64_t total, std::uint64_t seed) {
    if (count < 0 || total < 0) throw std::invalid_argument("sample_indices: negative count or total");
    std::vector<std::int64_t> out;
    if (count >= total) {
        out.resize(static_cast<std::size_t>(total));
        for (std::int64_t i = 0; i < total; ++i) out[static_cast<std::size_t>(i)] = i;
        return out;
    }
    if (count == 0) return out;
    if (count == 1) return {static_cast<std::int64_t>(SplitMix64(seed).below(static_cast<std::uint64_t>(total)))};

    // Both ends, then Floyd's algorithm over the interior [1, total - 1): count - 2 distinct
    // draws in exactly count - 2 steps, without materialising the population.
    std::unordered_set<std::int64_t> chosen;
    chosen.reserve(static_cast<std::size_t>(count));
    SplitMix64 rng(seed);
    const std::int64_t interior = total - 2;
    for (std::int64_t j = interior - (count - 2); j < interior; ++j) {
        const auto t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j + 1)));
        chosen.insert(chosen.count(t + 1) ? j + 1 : t + 1);
    }
    out.assign(chosen.begin(), chosen.end());
    out.push_back(0);
    out.push_back(total - 1);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace hipfuse::ref
