#include "plan/tensor.h"

#include "common/error.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace hipfuse {

std::size_t size_of(DataType type) {
  switch (type) {
    case DataType::half: return 2;
    case DataType::float32: return 4;
    case DataType::int32: return 4;
    case DataType::int8: return 1;
    case DataType::bfloat16: return 2;
    case DataType::float64: return 8;
    case DataType::float8: return 1;
    case DataType::bfloat8: return 1;
    case DataType::int64: return 8;
  }
  return 0;
}

const char* name_of(DataType type) {
  switch (type) {
    case DataType::half: return "fp16";
    case DataType::float32: return "fp32";
    case DataType::int32: return "int32";
    case DataType::int8: return "int8";
    case DataType::bfloat16: return "bf16";
    case DataType::float64: return "fp64";
    case DataType::float8: return "fp8";
    case DataType::bfloat8: return "bf8";
    case DataType::int64: return "int64";
  }
  return "unknown-type";
}

bool is_valid(DataType type) { return size_of(type) != 0; }

namespace {

// Sizes beyond these are refused when a descriptor is set, so that every count, span and
// byte size computed from a descriptor fits in 64 bits with room to spare.
constexpr std::int64_t kMaxSpan = std::int64_t{1} << 59;   // elements addressed
constexpr std::int64_t kMaxCount = std::int64_t{1} << 62;  // elements counted

[[noreturn]] void too_large(const std::vector<std::int64_t>& lengths) {
  std::string text;
  for (std::size_t i = 0; i < lengths.size(); ++i) text += (i ? "x" : "") + std::to_string(lengths[i]);
  fail(Status::bad_parm, "tensor too large: " + text + " (hipfuse supports tensors addressing fewer than 2^59 elements)");
}

// a * b + c, or nullopt when it leaves int64.
std::optional<std::int64_t> mul_add(std::int64_t a, std::int64_t b, std::int64_t c = 0) {
  std::int64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) return std::nullopt;
  return sum;
}

// Strides of a packed tensor whose dimensions, from outermost to innermost, are `order`.
std::vector<std::int64_t> strides_in_order(const std::vector<std::int64_t>& lengths, const std::vector<int>& order) {
  std::vector<std::int64_t> strides(lengths.size(), 1);
  std::int64_t step = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[static_cast<std::size_t>(*it)] = step;
    const auto next = mul_add(step, std::max<std::int64_t>(lengths[static_cast<std::size_t>(*it)], 1));
    if (!next || *next > kMaxCount) too_large(lengths);
    step = *next;
  }
  return strides;
}

std::vector<int> row_major(std::size_t dims) {
  std::vector<int> order(dims);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// N, spatial..., C: channels innermost.
std::vector<int> channels_last(std::size_t dims) {
  std::vector<int> order{0};
  for (std::size_t d = 2; d < dims; ++d) order.push_back(static_cast<int>(d));
  order.push_back(1);
  return order;
}

// Equal where it matters: the stride of a dimension of length 1 never addresses anything.
bool same_addressing(const TensorDesc& t, const std::vector<std::int64_t>& strides) {
  for (std::size_t d = 0; d < t.lengths.size(); ++d) {
    if (t.lengths[d] != 1 && t.strides[d] != strides[d]) return false;
  }
  return true;
}

// Whether the strides strictly decrease along `order` (outermost first), skipping
// dimensions of length 1.
bool strides_decrease(const TensorDesc& t, const std::vector<int>& order) {
  std::int64_t previous = -1;
  for (int d : order) {
    const auto i = static_cast<std::size_t>(d);
    if (t.lengths[i] == 1) continue;
    if (previous >= 0 && t.strides[i] >= previous) return false;
    previous = t.strides[i];
  }
  return true;
}

std::string join(const std::vector<std::int64_t>& values, char sep) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out += sep;
    out += std::to_string(values[i]);
  }
  return out;
}

}  // namespace

TensorDesc TensorDesc::packed(DataType type, std::vector<std::int64_t> lengths, Layout layout) {
  TensorDesc t;
  t.type = type;
  const bool last = layout == Layout::nhwc || layout == Layout::ndhwc;
  if (last && lengths.size() < 3) {
    fail(Status::bad_parm, "a channels-last layout needs at least 3 dimensions, got " + std::to_string(lengths.size()));
  }
  t.strides = strides_in_order(lengths, last ? channels_last(lengths.size()) : row_major(lengths.size()));
  t.lengths = std::move(lengths);
  t.check_size();
  return t;
}

std::int64_t TensorDesc::element_count() const {
  if (lengths.empty()) return 0;
  std::int64_t n = 1;
  for (auto len : lengths) {
    const auto next = mul_add(n, len);
    if (!next) too_large(lengths);
    n = *next;
  }
  return n;
}

std::int64_t TensorDesc::span() const {
  if (lengths.empty() || strides.size() != lengths.size()) return 0;
  std::int64_t last = 0;
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    if (lengths[d] <= 0) return 0;
    const auto next = mul_add(lengths[d] - 1, strides[d], last);
    if (!next) too_large(lengths);
    last = *next;
  }
  return last + 1;
}

std::size_t TensorDesc::bytes() const { return static_cast<std::size_t>(span()) * size_of(type); }

void TensorDesc::check_size() const {
  if (span() >= kMaxSpan || element_count() >= kMaxCount) too_large(lengths);
}

bool TensorDesc::is_packed() const {
  if (lengths.empty() || lengths.size() != strides.size()) return false;
  // Dimensions of length 1 address nothing; the rest, innermost first, must tile exactly.
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    if (lengths[d] <= 0) return false;
    if (lengths[d] != 1) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end(), [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
  std::int64_t expected = 1;
  for (auto d : dims) {
    if (strides[d] != expected) return false;
    expected *= lengths[d];
  }
  return true;
}

bool TensorDesc::is_channels_last() const {
  if (dims() < 3 || lengths.size() != strides.size()) return false;
  return same_addressing(*this, strides_in_order(lengths, channels_last(lengths.size())));
}

bool TensorDesc::is_channels_first_packed() const {
  if (lengths.empty() || lengths.size() != strides.size()) return false;
  return same_addressing(*this, strides_in_order(lengths, row_major(lengths.size())));
}

Layout TensorDesc::layout() const {
  const Layout first = dims() == 5 ? Layout::ncdhw : Layout::nchw;
  const Layout last = dims() == 5 ? Layout::ndhwc : Layout::nhwc;
  if (dims() < 3 || lengths.size() != strides.size()) return first;
  if (strides == strides_in_order(lengths, row_major(lengths.size()))) return first;
  if (strides == strides_in_order(lengths, channels_last(lengths.size()))) return last;
  // Padded or sliced tensors: the order of the strides tells.
  const bool in_last_order = strides_decrease(*this, channels_last(lengths.size()));
  return in_last_order && !strides_decrease(*this, row_major(lengths.size())) ? last : first;
}

std::string TensorDesc::to_string() const {
  std::string out = std::string(name_of(type)) + " " + (lengths.empty() ? std::string("(unset)") : join(lengths, 'x'));
  if (lengths.empty()) return out;
  // Exact stride equality, so the text identifies the descriptor (it is part of plan keys).
  if (strides == strides_in_order(lengths, row_major(lengths.size()))) {
    return out + (dims() == 5 ? " (ncdhw)" : dims() == 4 ? " (nchw)" : " (packed)");
  }
  if (dims() >= 3 && strides == strides_in_order(lengths, channels_last(lengths.size()))) {
    return out + (dims() == 5 ? " (ndhwc)" : " (nhwc)");
  }
  return out + " (strides " + join(strides, ',') + ")";
}

}  // namespace hipfuse
