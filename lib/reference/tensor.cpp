#include "hipfuse/reference/tensor.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace hipfuse::ref {
namespace {

void check_strides(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& strides) {
    if (lengths.size() != strides.size()) {
        throw std::invalid_argument("tensor storage: " + std::to_string(lengths.size()) + " lengths but " +
                                    std::to_string(strides.size()) + " strides");
    }
    for (const std::int64_t s : strides) {
        if (s < 0) throw std::invalid_argument("tensor storage: negative stride");
    }
}

// Calls f(linear, offset) for every element in row-major order, offset = sum(index * stride).
// An odometer keeps this O(1) per element for any rank.
template <class F>
void for_each_offset(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& strides, F f) {
    const std::int64_t count = element_count(lengths);
    if (count == 0) return;
    const std::size_t rank = lengths.size();
    std::vector<std::int64_t> index(rank, 0);
    std::int64_t offset = 0;
    for (std::int64_t linear = 0; linear < count; ++linear) {
        f(linear, offset);
        for (std::size_t d = rank; d-- > 0;) {
            if (++index[d] < lengths[d]) {
                offset += strides[d];
                break;
            }
            offset -= (lengths[d] - 1) * strides[d];
            index[d] = 0;
        }
    }
}

}  // namespace

std::int64_t element_count(const std::vector<std::int64_t>& lengths) {
    std::int64_t n = 1;
    for (const std::int64_t l : lengths) {
        if (l < 0) throw std::invalid_argument("tensor: negative length");
        n *= l;
    }
    return n;
}

std::int64_t spatial_size(const std::vector<std::int64_t>& lengths) {
    std::int64_t n = 1;
    for (std::size_t d = 2; d < lengths.size(); ++d) n *= lengths[d];
    return n;
}

Tensor make_tensor(std::vector<std::int64_t> lengths, double value) {
    const std::int64_t n = element_count(lengths);
    return Tensor{std::move(lengths), std::vector<double>(static_cast<std::size_t>(n), value)};
}

void round_all(Tensor& t, DType dtype) {
    for (double& v : t.data) v = round_to(dtype, v);
}

std::vector<std::int64_t> packed_strides(const std::vector<std::int64_t>& lengths, Layout layout) {
    const std::size_t rank = lengths.size();
    std::vector<std::int64_t> strides(rank, 1);
    if (layout == Layout::nchw || rank < 3) {
        for (std::size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * lengths[d];
        return strides;
    }
    // Channels last: C fastest, then the spatial dims from innermost out, then N.
    std::int64_t s = lengths[1];
    for (std::size_t d = rank; d-- > 2;) {
        strides[d] = s;
        s *= lengths[d];
    }
    strides[1] = 1;
    strides[0] = s;
    return strides;
}

std::int64_t storage_elements(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& strides) {
    check_strides(lengths, strides);
    if (element_count(lengths) == 0) return 0;
    std::int64_t last = 0;
    for (std::size_t d = 0; d < lengths.size(); ++d) last += (lengths[d] - 1) * strides[d];
    return last + 1;
}

Tensor from_storage(const void* bytes, DType dtype, const std::vector<std::int64_t>& lengths,
                    const std::vector<std::int64_t>& strides) {
    check_strides(lengths, strides);
    Tensor t = make_tensor(lengths);
    const auto* base = static_cast<const unsigned char*>(bytes);
    const auto size = static_cast<std::int64_t>(size_of(dtype));
    for_each_offset(lengths, strides, [&](std::int64_t linear, std::int64_t offset) {
        t[linear] = decode(dtype, base + offset * size);
    });
    return t;
}

void to_storage(const Tensor& t, DType dtype, const std::vector<std::int64_t>& strides, void* bytes) {
    check_strides(t.lengths, strides);
    if (element_count(t.lengths) != t.numel()) throw std::invalid_argument("to_storage: data size does not match lengths");
    auto* base = static_cast<unsigned char*>(bytes);
    const auto size = static_cast<std::int64_t>(size_of(dtype));
    for_each_offset(t.lengths, strides, [&](std::int64_t linear, std::int64_t offset) {
        encode(dtype, t[linear], base + offset * size);
    });
}

std::int64_t linear_index(const std::vector<std::int64_t>& lengths, const std::vector<std::int64_t>& index) {
    if (index.size() != lengths.size()) throw std::invalid_argument("linear_index: rank mismatch");
    std::int64_t linear = 0;
    for (std::size_t d = 0; d < lengths.size(); ++d) {
        if (index[d] < 0 || index[d] >= lengths[d]) throw std::out_of_range("linear_index: index out of range");
        linear = linear * lengths[d] + index[d];
    }
    return linear;
}

std::vector<std::int64_t> multi_index(const std::vector<std::int64_t>& lengths, std::int64_t linear) {
    if (linear < 0 || linear >= element_count(lengths)) throw std::out_of_range("multi_index: index out of range");
    std::vector<std::int64_t> index(lengths.size(), 0);
    for (std::size_t d = lengths.size(); d-- > 0;) {
        index[d] = linear % lengths[d];
        linear /= lengths[d];
    }
    return index;
}

}  // namespace hipfuse::ref
