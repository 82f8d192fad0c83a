#include "api_harness.h"

#include "api/objects.h"
#include "common/error.h"
#include "runtime/kernel_compiler.h"
#include "runtime/platform.h"
#include "solvers/solver.h"

#include <hipfuse/hipfuse.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <optional>
#include <typeinfo>
#include <vector>

namespace hipfuse::fuzz {
namespace {

__extension__ typedef __int128 i128;

// Bugs found by this harness and still open; with ApiOptions::avoid_open_issues the calls
// that would trip over them are skipped with skip() (and named in the trace). Remove a rule
// when its bug is fixed; the regression tests in tests/unit/test_reliability_api.cpp say when.
// None is open now. Fixed (their inputs stay in tests/fuzz/regressions/fuzz_api/):
// huge-tensor, conv-pad-overflow, create-null-output-leak, conv-direct-huge-k,
// enum-out-of-range, igemm-32bit-sizes (docs/RELIABILITY.md); derive-bn-overlapping-strides was the harness's own
// model (it expected a per-activation BN descriptor derived from an x with overlapping strides
// to fit, though packed it addresses 2^59 elements or more).

// hipfuse refuses descriptors addressing 2^59 elements or more, or counting 2^62 or more
// (lib/plan/tensor.cpp), so that every size it derives fits in 64 bits.
constexpr i128 kMaxSpan = i128{1} << 59;
constexpr i128 kMaxCount = i128{1} << 62;

// ---------------------------------------------------------------------------------------
// Statuses: a bit per miopenStatus_t value.

using Mask = unsigned;
constexpr Mask bit(miopenStatus_t s) { return 1u << static_cast<unsigned>(s); }
constexpr Mask OK = bit(miopenStatusSuccess);
constexpr Mask NOT_INIT = bit(miopenStatusNotInitialized);
constexpr Mask INVALID = bit(miopenStatusInvalidValue);
constexpr Mask BAD = bit(miopenStatusBadParm);
constexpr Mask ALLOC = bit(miopenStatusAllocFailed);
constexpr Mask INTERNAL = bit(miopenStatusInternalError);
constexpr Mask NOT_IMPL = bit(miopenStatusNotImplemented);
constexpr Mask UNSUPPORTED = bit(miopenStatusUnsupportedOp);

// ---------------------------------------------------------------------------------------
// The input, read as a program.

constexpr int kInterestingInts[32] = {1,     2,     3,       4,       1,      2,       8,        16,
                                      5,     7,     1,       3,       0,      -1,      -2,       9,
                                      11,    32,    64,      255,     256,    1024,    4096,     46341,
                                      65535, 65536, 1 << 24, INT_MAX, INT_MIN, INT_MAX - 1, 1 << 30, 2};

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | byte();
    return v;
  }
  std::uint64_t u64() { return (std::uint64_t{u32()} << 32) | u32(); }
  int pick(std::size_t n) { return n <= 1 ? 0 : static_cast<int>(byte() % n); }
  bool one_in(unsigned n) { return byte() % n == 0; }
  bool flag() { return (byte() & 1) != 0; }
  // Mostly small positive values, sometimes the edges of int.
  int integer() {
    const std::uint8_t sel = byte();
    if (sel < 240) return kInterestingInts[sel % 32];
    return static_cast<int>(u32());
  }
  double real() {
    static const double table[16] = {0.0,  1.0,     -1.0,   0.5,      2.0,      1e-5,      0.99, 1e30,
                                     -1e30, NAN, INFINITY, -INFINITY, DBL_MIN / 2, 1e-300, DBL_MAX, 0.1};
    const std::uint8_t sel = byte();
    if (sel < 240) return table[sel % 16];
    const std::uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  template <typename E>
  E from(std::initializer_list<int> values) {
    return static_cast<E>(values.begin()[pick(values.size())]);
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------
// What the harness knows about the objects it made (its own model, not hipfuse's).

enum class Kind { handle, tensor, conv, act, plan, op, args };
constexpr int kKinds = 7;

struct TensorModel {
  int type = miopenFloat;
  std::vector<i128> lengths, strides;  // exact: computed without overflow
};

struct ConvModel {
  int mode = 0;
  std::vector<int> pads{0, 0}, strides{1, 1}, dilations{1, 1};
  int groups = 1;
  int fp16_alt = -1, deterministic = 0, fp8 = 0, tf32 = 0;
};

struct ActModel {
  int mode = 0;
  double alpha = 0, beta = 0, gamma = 0;
};

// Op kinds by position in hipfuse's Op variant (plan/ops.h): the setter for kind k is
// setter k below.
enum OpKind { kConv, kBias, kActFwd, kActBwd, kBnInf, kBnFwd, kBnBwd, kResidual, kOpKinds };

struct OpModel {
  miopenFusionOpDescriptor_t op;
  int kind;
  bool running = false;
};

struct PlanModel {
  miopenFusionPlanDescriptor_t plan;
  bool horizontal = false;
  std::vector<OpModel> ops;
};

struct HandleModel {
  api::HandleObject* handle;
  miopenAcceleratorQueue_t stream = nullptr;
};

bool valid_dtype(int t) { return t == 0 || t == 1 || t == 2 || t == 3 || (t >= 5 && t <= 9); }
i128 dtype_size(int t) {
  switch (t) {
    case 0: case 5: return 2;
    case 1: case 2: return 4;
    case 3: case 7: case 8: return 1;
    case 6: case 9: return 8;
  }
  return 0;
}
bool valid_activation(int m) { return m >= 0 && m <= 9; }
bool valid_bn_mode(int m) { return m == 0 || m == 1; }
bool fits_int(i128 v) { return v >= INT_MIN && v <= INT_MAX; }

std::vector<i128> packed_strides(const std::vector<i128>& lengths, bool channels_last) {
  std::vector<int> order(lengths.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  if (channels_last) {
    order.clear();
    order.push_back(0);
    for (std::size_t d = 2; d < lengths.size(); ++d) order.push_back(static_cast<int>(d));
    order.push_back(1);
  }
  std::vector<i128> strides(lengths.size(), 1);
  i128 step = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[static_cast<std::size_t>(*it)] = step;
    // Saturate: a stride past 2^100 is "too large" wherever it is compared. Lengths <= 0
    // (arguments about to be refused) count as 1.
    const i128 limit = i128{1} << 100;
    const i128 len = std::max<i128>(lengths[static_cast<std::size_t>(*it)], 1);
    step = step > limit / len ? limit : step * len;
  }
  return strides;
}

// (1 + sum((len - 1) * stride)) * element size, exactly; nullopt past 2^64.
std::optional<std::uint64_t> expected_bytes(const TensorModel& t) {
  if (t.lengths.empty()) return 0;
  i128 last = 0;
  const i128 limit = i128{1} << 100;
  for (std::size_t d = 0; d < t.lengths.size(); ++d) {
    const i128 len = t.lengths[d], stride = t.strides[d];
    if (len - 1 != 0 && stride > limit / (len - 1)) return std::nullopt;
    last += (len - 1) * stride;
    if (last > limit) return std::nullopt;
  }
  const i128 bytes = (last + 1) * dtype_size(t.type);
  if (bytes > static_cast<i128>(UINT64_MAX)) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

// Whether hipfuse must refuse a descriptor of these lengths and strides as too large.
bool too_large(const std::vector<i128>& lengths, const std::vector<i128>& strides) {
  i128 count = 1, span = 1;
  const i128 cap = kMaxCount * 2;
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    if (lengths[d] <= 0) return false;  // refused for that reason instead
    count = std::min(count * lengths[d], cap);
    span = std::min(span + (lengths[d] - 1) * std::min(strides[d], cap), cap);
  }
  return span >= kMaxSpan || count >= kMaxCount;
}

std::string text(i128 v) {
  if (v == 0) return "0";
  std::string s;
  const bool neg = v < 0;
  while (v != 0) {
    const int digit = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (neg ? -digit : digit)));
    v /= 10;
  }
  return neg ? "-" + s : s;
}

// Outputs start filled with 0x5A bytes; a failing call must leave them so. Compared as
// bytes, so enums are never loaded with a value outside their range.
template <typename T>
void poison(T& v) {
  std::memset(static_cast<void*>(&v), 0x5A, sizeof v);
}
template <typename T>
bool poisoned(const T& v) {
  T p;
  poison(p);
  return std::memcmp(&p, &v, sizeof v) == 0;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool gpu_present() {
  static const bool present = rt::device_count(nullptr) > 0;
  return present;
}

// A heap block hipfuse never made, whose first word is no valid tag.
struct Junk {
  std::uint32_t words[16];
  Junk() { std::fill(std::begin(words), std::end(words), 0x5A5A5A5Au); }
};

// hipfuse keeps 1024 destroyed shells (lib/api/objects.cpp); stay well inside.
constexpr long kQuarantineWindow = 900;
constexpr std::size_t kMaxPerKind = 6;
constexpr std::size_t kMaxOpsPerPlan = 12;



void* fake_device(int n) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x10000) * static_cast<std::uintptr_t>(n)); }

// ---------------------------------------------------------------------------------------

class Session {
 public:
  Session(const std::uint8_t* data, std::size_t size, const ApiOptions& options) : in_(data, size), options_(options) {}
  ~Session() {
    for (auto* h : orphan_handles_) delete h;
  }

  std::string run() {
    for (int i = 0; i < options_.max_calls && !in_.done() && broken_.empty(); ++i) step();
    if (broken_.empty()) cleanup();
    if (broken_.empty()) return "";
    std::string out = broken_ + "\n  calls (oldest first):";
    for (const auto& t : trace_) out += "\n    " + t;
    return out;
  }

 private:
  // --- bookkeeping ------------------------------------------------------------------------
  void note(std::string what) {
    trace_.push_back(std::move(what));
    if (trace_.size() > 48) trace_.pop_front();
  }
  void fail(const std::string& why) {
    if (broken_.empty()) broken_ = why;
  }
  // True (and noted) when the call is to be skipped because of a known open issue.
  bool skip(bool trips, const char* issue) {
    if (!trips || !options_.avoid_open_issues) return false;
    note(std::string("skipped: open issue ") + issue);
    return true;
  }

  // Checks the documented status set and the last-error rule; returns the status.
  miopenStatus_t check(const char* fn, miopenStatus_t s, Mask allowed) {
    const unsigned v = static_cast<unsigned>(s);
    note(std::string(fn) + " -> " + miopenGetErrorString(s));
    if (v >= 32 || ((allowed >> v) & 1u) == 0) {
      fail(std::string(fn) + " returned " + miopenGetErrorString(s) + " (" + std::to_string(v) +
           "), which its documentation does not list here: " + hipfuseGetLastErrorMessage());
      return s;
    }
    const std::string message = hipfuseGetLastErrorMessage();
    if (s == miopenStatusSuccess) {
      if (!message.empty()) fail(std::string(fn) + " succeeded but left the last-error message '" + message + "'");
    } else {
      if (message.rfind(std::string(fn) + ": ", 0) != 0 || message.size() <= std::strlen(fn) + 3) {
        fail(std::string(fn) + " failed without a '<function>: <reason>' message: '" + message + "'");
      }
      if (message.find(": internal error: ") != std::string::npos || message.find("unknown exception") != std::string::npos) {
        fail(std::string(fn) + " let a non-hipfuse exception reach the C boundary: " + message);
      }
    }
    return s;
  }
  void expect(const char* fn, miopenStatus_t got, miopenStatus_t want) {
    if (got != want && broken_.empty()) {
      fail(std::string(fn) + " returned " + miopenGetErrorString(got) + ", expected " + miopenGetErrorString(want) +
           ": " + hipfuseGetLastErrorMessage());
    }
  }

  std::vector<void*> live(Kind k) const {
    std::vector<void*> out;
    switch (k) {
      case Kind::handle: for (auto& h : handles_) out.push_back(h.handle); break;
      case Kind::tensor: for (auto& t : tensors_) out.push_back(t.first); break;
      case Kind::conv: for (auto& c : convs_) out.push_back(c.first); break;
      case Kind::act: for (auto& a : acts_) out.push_back(a.first); break;
      case Kind::plan: for (auto& p : plans_) out.push_back(p.plan); break;
      case Kind::op: for (auto& p : plans_) for (auto& o : p.ops) out.push_back(o.op); break;
      case Kind::args: for (auto* a : args_) out.push_back(a); break;
    }
    return out;
  }

  void* recent_dead() {
    while (!dead_.empty() && destroyed_ - dead_.front().second >= kQuarantineWindow) dead_.pop_front();
    if (dead_.empty()) return nullptr;
    return dead_[static_cast<std::size_t>(in_.pick(dead_.size()))].first;
  }
  void died(void* p) { dead_.emplace_back(p, destroyed_++); }

  struct Pick {
    void* ptr;
    bool valid;
  };
  // Null, a destroyed object, another kind, junk, or (mostly) a live object of kind `want`.
  Pick pick(Kind want) {
    switch (in_.pick(12)) {
      case 0: return {nullptr, false};
      case 1:
        if (void* p = recent_dead()) return {p, false};
        break;
      case 2: {
        const int k = in_.pick(kKinds);
        if (k != static_cast<int>(want)) {
          auto other = live(static_cast<Kind>(k));
          if (!other.empty()) return {other[static_cast<std::size_t>(in_.pick(other.size()))], false};
        }
        break;
      }
      case 3: return {&junk_, false};
      default: break;
    }
    auto pool = live(want);
    if (pool.empty()) return {nullptr, false};
    return {pool[static_cast<std::size_t>(in_.pick(pool.size()))], true};
  }
  template <typename T>
  std::pair<T, bool> pick_as(Kind want) {
    Pick p = pick(want);
    return {static_cast<T>(p.ptr), p.valid};
  }

  TensorModel* tensor_model(void* p) {
    auto it = std::find_if(tensors_.begin(), tensors_.end(), [&](auto& t) { return t.first == p; });
    return it == tensors_.end() ? nullptr : &it->second;
  }
  ConvModel* conv_model(void* p) {
    auto it = std::find_if(convs_.begin(), convs_.end(), [&](auto& c) { return c.first == p; });
    return it == convs_.end() ? nullptr : &it->second;
  }
  ActModel* act_model(void* p) {
    auto it = std::find_if(acts_.begin(), acts_.end(), [&](auto& a) { return a.first == p; });
    return it == acts_.end() ? nullptr : &it->second;
  }
  PlanModel* plan_model(void* p) {
    auto it = std::find_if(plans_.begin(), plans_.end(), [&](auto& m) { return m.plan == p; });
    return it == plans_.end() ? nullptr : &*it;
  }
  HandleModel* handle_model(void* p) {
    auto it = std::find_if(handles_.begin(), handles_.end(), [&](auto& h) { return h.handle == p; });
    return it == handles_.end() ? nullptr : &*it;
  }
  const OpModel* op_model(void* p) const {
    for (auto& plan : plans_) {
      for (auto& op : plan.ops) {
        if (op.op == p) return &op;
      }
    }
    return nullptr;
  }

  // --- the program ----------------------------------------------------------------------
  void step() {
    switch (in_.byte() % 37) {
      case 0: create_tensor(); break;
      case 1: set_4d(); break;
      case 2: set_4d_ex(); break;
      case 3: set_nd_layout(); break;
      case 4: set_tensor(); break;
      case 5: get_4d(); break;
      case 6: get_tensor(); break;
      case 7: num_bytes(); break;
      case 8: destroy_tensor(); break;
      case 9: derive_bn(); break;
      case 10: create_conv(); break;
      case 11: init_conv(); break;
      case 12: init_conv_nd(); break;
      case 13: get_conv(); break;
      case 14: group_count(); break;
      case 15: conv_output_dim(); break;
      case 16: conv_attribute(); break;
      case 17: destroy_conv(); break;
      case 18: create_act(); break;
      case 19: set_get_act(); break;
      case 20: destroy_act(); break;
      case 21: create_plan(); break;
      case 22: destroy_plan(); break;
      case 23: create_op(); break;
      case 24: get_op(); break;
      case 25: plan_queries(); break;
      case 26: compile(); break;
      case 27: compile_for_arch(); break;
      case 28: create_args(); break;
      case 29: destroy_args(); break;
      case 30: set_op_args(); break;
      case 31: execute(); break;
      case 32: one_shot(); break;
      case 33: handle_calls(); break;
      case 34: fake_handle(); break;
      case 35: info_calls(); break;
      case 36: dry_compile_step(); break;
    }
  }

  int dtype() { return in_.from<int>({1, 0, 5, 1, 0, 3, 2, 6, 7, 8, 9, 4, -1, 10, 100}); }

  // Tensors ------------------------------------------------------------------------------
  void create_tensor() {
    if (tensors_.size() >= kMaxPerKind) return;
    const bool null_out = in_.one_in(16);
    miopenTensorDescriptor_t t = nullptr;
    const auto s = check("miopenCreateTensorDescriptor", miopenCreateTensorDescriptor(null_out ? nullptr : &t), OK | BAD | ALLOC);
    expect("miopenCreateTensorDescriptor", s, null_out ? miopenStatusBadParm : miopenStatusSuccess);
    if (s == miopenStatusSuccess && !null_out) {
      if (t == nullptr) return fail("miopenCreateTensorDescriptor succeeded with a null descriptor");
      tensors_.emplace_back(t, TensorModel{});
    }
  }

  void set_4d() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const int type = dtype();
    int lens[4];
    for (int& l : lens) l = in_.integer();
    const auto s = check("miopenSet4dTensorDescriptor",
                         miopenSet4dTensorDescriptor(t, static_cast<miopenDataType_t>(type), lens[0], lens[1], lens[2], lens[3]),
                         OK | BAD);
    const std::vector<i128> l(lens, lens + 4);
    const bool valid = ok && valid_dtype(type) && std::all_of(lens, lens + 4, [](int x) { return x > 0; }) &&
                       !too_large(l, packed_strides(l, false));
    expect("miopenSet4dTensorDescriptor", s, valid ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && valid) {
      TensorModel m;
      m.type = type;
      m.lengths.assign(lens, lens + 4);
      m.strides = packed_strides(m.lengths, false);
      *tensor_model(t) = m;
      verify_tensor(t);
    }
  }

  void set_4d_ex() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const int type = dtype();
    int v[8];
    for (int& x : v) x = in_.integer();
    const auto s = check("miopenSet4dTensorDescriptorEx",
                         miopenSet4dTensorDescriptorEx(t, static_cast<miopenDataType_t>(type), v[0], v[1], v[2], v[3], v[4],
                                                       v[5], v[6], v[7]),
                         OK | BAD);
    const bool valid = ok && valid_dtype(type) && std::all_of(v, v + 8, [](int x) { return x > 0; }) &&
                       !too_large(std::vector<i128>(v, v + 4), std::vector<i128>(v + 4, v + 8));
    expect("miopenSet4dTensorDescriptorEx", s, valid ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && valid) {
      TensorModel m;
      m.type = type;
      m.lengths.assign(v, v + 4);
      m.strides.assign(v + 4, v + 8);
      *tensor_model(t) = m;
      verify_tensor(t);
    }
  }

  void set_nd_layout() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const int type = dtype();
    const int layout = in_.from<int>({0, 1, 7, 8, 0, 1, 2, 3, 4, 5, 6, 9, -1});
    const int count = in_.from<int>({4, 5, 4, 5, 3, 0, -1, 8, 9, 1, 2, 6});
    int lens[8];
    for (int& l : lens) l = in_.integer();
    const bool null_lens = in_.one_in(16);
    const auto s = check("miopenSetNdTensorDescriptorWithLayout",
                         miopenSetNdTensorDescriptorWithLayout(t, static_cast<miopenDataType_t>(type),
                                                               static_cast<miopenTensorLayout_t>(layout),
                                                               null_lens ? nullptr : lens, count),
                         OK | INVALID | BAD | NOT_IMPL);
    const bool lens_ok = count >= 1 && count <= 8 && std::all_of(lens, lens + std::clamp(count, 0, 8), [](int l) { return l > 0; });
    const bool layout_ok = ((layout == 0 || layout == 1 || layout == 2) && count == 4) || ((layout == 7 || layout == 8) && count == 5);
    const std::vector<i128> lv(lens, lens + std::clamp(count, 0, 8));
    const bool valid = ok && !null_lens && valid_dtype(type) && lens_ok && layout_ok && !too_large(lv, packed_strides(lv, false));
    if (!ok) expect("miopenSetNdTensorDescriptorWithLayout", s, miopenStatusBadParm);
    if (valid) expect("miopenSetNdTensorDescriptorWithLayout", s, miopenStatusSuccess);
    if (s == miopenStatusSuccess && !valid) fail("miopenSetNdTensorDescriptorWithLayout accepted invalid arguments");
    if (s == miopenStatusSuccess && valid) {
      TensorModel m;
      m.type = type;
      m.lengths.assign(lens, lens + count);
      if (layout == 2) {  // CHWN
        const i128 n = lens[0], h = lens[2], w = lens[3];
        m.strides = {1, h * w * n, w * n, n};
      } else {
        m.strides = packed_strides(m.lengths, layout == 1 || layout == 8);
      }
      *tensor_model(t) = m;
      verify_tensor(t);
    }
  }

  void set_tensor() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const int type = dtype();
    const int dims = in_.from<int>({4, 5, 4, 1, 2, 3, 8, 0, 9, -1, 6, 7});
    int lens[8], strides[8];
    for (int& l : lens) l = in_.integer();
    const bool with_strides = in_.flag();
    for (int& s : strides) s = in_.integer();
    const bool null_dims = in_.one_in(16);
    const auto s = check("miopenSetTensorDescriptor",
                         miopenSetTensorDescriptor(t, static_cast<miopenDataType_t>(type), dims, null_dims ? nullptr : lens,
                                                   with_strides ? strides : nullptr),
                         OK | INVALID | BAD);
    const int n = std::clamp(dims, 0, 8);
    const std::vector<i128> lv(lens, lens + n);
    const bool valid = ok && !null_dims && valid_dtype(type) && dims >= 1 && dims <= 8 &&
                       std::all_of(lens, lens + n, [](int l) { return l > 0; }) &&
                       (!with_strides || std::all_of(strides, strides + n, [](int x) { return x > 0; })) &&
                       !too_large(lv, with_strides ? std::vector<i128>(strides, strides + n) : packed_strides(lv, false));
    if (!ok) expect("miopenSetTensorDescriptor", s, miopenStatusBadParm);
    if (ok && null_dims) expect("miopenSetTensorDescriptor", s, miopenStatusInvalidValue);
    if (valid) expect("miopenSetTensorDescriptor", s, miopenStatusSuccess);
    if (s == miopenStatusSuccess && !valid) fail("miopenSetTensorDescriptor accepted invalid arguments");
    if (s == miopenStatusSuccess && valid) {
      TensorModel m;
      m.type = type;
      m.lengths.assign(lens, lens + dims);
      m.strides = with_strides ? std::vector<i128>(strides, strides + dims) : packed_strides(m.lengths, false);
      *tensor_model(t) = m;
      verify_tensor(t);
    }
  }

  // Reads a live tensor back every way and compares with the model.
  void verify_tensor(miopenTensorDescriptor_t t) {
    const TensorModel& m = *tensor_model(t);
    const int dims = static_cast<int>(m.lengths.size());
    int size = -7;
    expect("miopenGetTensorDescriptorSize", check("miopenGetTensorDescriptorSize", miopenGetTensorDescriptorSize(t, &size), OK | BAD),
           miopenStatusSuccess);
    if (size != dims) return fail("miopenGetTensorDescriptorSize gives " + std::to_string(size) + ", expected " + std::to_string(dims));

    bool all_fit = true;
    for (int d = 0; d < dims; ++d) all_fit = all_fit && fits_int(m.lengths[static_cast<std::size_t>(d)]) && fits_int(m.strides[static_cast<std::size_t>(d)]);

    int lens[8], strides[8];
    std::fill(std::begin(lens), std::end(lens), -7);
    std::fill(std::begin(strides), std::end(strides), -7);
    miopenDataType_t type;
    poison(type);
    const auto s = check("miopenGetTensorDescriptor", miopenGetTensorDescriptor(t, &type, lens, strides), OK | BAD);
    expect("miopenGetTensorDescriptor", s, all_fit ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess) {
      if (static_cast<int>(type) != m.type) return fail("miopenGetTensorDescriptor gives another data type");
      for (int d = 0; d < dims; ++d) {
        if (lens[d] != m.lengths[static_cast<std::size_t>(d)] || strides[d] != m.strides[static_cast<std::size_t>(d)]) {
          return fail("miopenGetTensorDescriptor: dimension " + std::to_string(d) + " is " + std::to_string(lens[d]) +
                      " stride " + std::to_string(strides[d]) + ", expected " + text(m.lengths[static_cast<std::size_t>(d)]) +
                      " stride " + text(m.strides[static_cast<std::size_t>(d)]));
        }
      }
      for (int d = dims; d < 8; ++d) {
        if (lens[d] != -7 || strides[d] != -7) return fail("miopenGetTensorDescriptor wrote past the descriptor's dimensions");
      }
    } else if (lens[0] != -7 || strides[0] != -7 || !poisoned(type)) {
      return fail("miopenGetTensorDescriptor failed but wrote its outputs");
    }

    int v[8];
    std::fill(std::begin(v), std::end(v), -7);
    const auto s4 = check("miopenGet4dTensorDescriptor",
                          miopenGet4dTensorDescriptor(t, &type, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]), OK | BAD);
    expect("miopenGet4dTensorDescriptor", s4, dims == 4 && all_fit ? miopenStatusSuccess : miopenStatusBadParm);
    if (s4 == miopenStatusSuccess) {
      for (int d = 0; d < 4; ++d) {
        if (v[d] != m.lengths[static_cast<std::size_t>(d)] || v[4 + d] != m.strides[static_cast<std::size_t>(d)]) {
          return fail("miopenGet4dTensorDescriptor disagrees with what was set, dimension " + std::to_string(d));
        }
      }
    } else if (std::any_of(std::begin(v), std::end(v), [](int x) { return x != -7; })) {
      return fail("miopenGet4dTensorDescriptor failed but wrote its outputs");
    }

    std::size_t bytes = 0x5a5a;
    const auto sb = check("miopenGetTensorNumBytes", miopenGetTensorNumBytes(t, &bytes), OK | BAD);
    const auto want = expected_bytes(m);
    if (want) {
      expect("miopenGetTensorNumBytes", sb, miopenStatusSuccess);
      if (sb == miopenStatusSuccess && bytes != *want) {
        fail("miopenGetTensorNumBytes gives " + std::to_string(bytes) + ", expected " + std::to_string(*want));
      }
    } else if (sb == miopenStatusSuccess) {
      fail("miopenGetTensorNumBytes succeeded (" + std::to_string(bytes) +
           ") for a tensor whose byte count does not fit in 64 bits; the descriptor should have been refused");
    }
  }

  void get_4d() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    int v[8];
    std::fill(std::begin(v), std::end(v), -7);
    miopenDataType_t type;
    poison(type);
    const int null_at = in_.pick(16);  // 0..8: that output is null
    int* outs[8];
    for (int i = 0; i < 8; ++i) outs[i] = null_at == i + 1 ? nullptr : &v[i];
    const auto s = check("miopenGet4dTensorDescriptor",
                         miopenGet4dTensorDescriptor(t, null_at == 0 ? nullptr : &type, outs[0], outs[1], outs[2], outs[3],
                                                     outs[4], outs[5], outs[6], outs[7]),
                         OK | BAD);
    if (!ok || null_at <= 8) expect("miopenGet4dTensorDescriptor", s, miopenStatusBadParm);
    if (s != miopenStatusSuccess && (std::any_of(std::begin(v), std::end(v), [](int x) { return x != -7; }) || !poisoned(type))) {
      fail("miopenGet4dTensorDescriptor failed but wrote its outputs");
    }
    if (ok && null_at > 8) verify_tensor(t);
  }

  void get_tensor() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    if (ok && !in_.one_in(4)) return verify_tensor(t);
    const int which = in_.pick(4);
    int size = -7, lens[8], strides[8];
    miopenDataType_t type{};
    const auto s1 = check("miopenGetTensorDescriptorSize", miopenGetTensorDescriptorSize(t, which == 0 ? nullptr : &size), OK | BAD);
    if (!ok || which == 0) expect("miopenGetTensorDescriptorSize", s1, miopenStatusBadParm);
    const auto s2 = check("miopenGetTensorDescriptor",
                          miopenGetTensorDescriptor(t, which == 1 ? nullptr : &type, which == 2 ? nullptr : lens,
                                                    which == 3 ? nullptr : strides),
                          OK | BAD);
    if (!ok || which != 0) expect("miopenGetTensorDescriptor", s2, miopenStatusBadParm);
  }

  void num_bytes() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const bool null_out = in_.one_in(8);
    std::size_t bytes = 0x5a5a;
    const auto s = check("miopenGetTensorNumBytes", miopenGetTensorNumBytes(t, null_out ? nullptr : &bytes), OK | BAD);
    if (!ok || null_out) {
      expect("miopenGetTensorNumBytes", s, miopenStatusBadParm);
      if (bytes != 0x5a5a) fail("miopenGetTensorNumBytes failed but wrote its output");
    } else {
      verify_tensor(t);
    }
  }

  void destroy_tensor() {
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const auto s = check("miopenDestroyTensorDescriptor", miopenDestroyTensorDescriptor(t), OK | BAD);
    expect("miopenDestroyTensorDescriptor", s, ok || t == nullptr ? miopenStatusSuccess : miopenStatusBadParm);
    if (ok && s == miopenStatusSuccess) {
      tensors_.erase(std::find_if(tensors_.begin(), tensors_.end(), [target = t](auto& e) { return e.first == target; }));
      died(t);
    }
  }

  void derive_bn() {
    auto [d, dok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [x, xok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const int mode = in_.from<int>({1, 0, 1, 0, 2, -1});
    const auto s = check("miopenDeriveBNTensorDescriptor",
                         miopenDeriveBNTensorDescriptor(d, x, static_cast<miopenBatchNormMode_t>(mode)), OK | BAD);
    if (!dok || !xok || !valid_bn_mode(mode)) return expect("miopenDeriveBNTensorDescriptor", s, miopenStatusBadParm);
    const TensorModel xm = *tensor_model(x);
    const bool valid = xm.lengths.size() == 4 || xm.lengths.size() == 5;
    TensorModel m;
    if (valid) {
      m.type = miopenFloat;
      m.lengths.assign(xm.lengths.size(), 1);
      m.lengths[1] = xm.lengths[1];
      if (mode == miopenBNPerActivation) {
        for (std::size_t i = 2; i < m.lengths.size(); ++i) m.lengths[i] = xm.lengths[i];
      }
      m.strides = packed_strides(m.lengths, false);
    }
    // x may address fewer elements than it counts (overlapping strides), but the derived
    // descriptor is packed: per activation it may then be too large, and is refused.
    const bool fits = valid && !too_large(m.lengths, m.strides);
    expect("miopenDeriveBNTensorDescriptor", s, fits ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && fits) {
      *tensor_model(d) = m;
      verify_tensor(d);
    }
  }

  // Convolutions -------------------------------------------------------------------------
  void create_conv() {
    if (convs_.size() >= kMaxPerKind) return;
    const bool null_out = in_.one_in(16);
    miopenConvolutionDescriptor_t c = nullptr;
    const auto s = check("miopenCreateConvolutionDescriptor", miopenCreateConvolutionDescriptor(null_out ? nullptr : &c), OK | BAD | ALLOC);
    expect("miopenCreateConvolutionDescriptor", s, null_out ? miopenStatusBadParm : miopenStatusSuccess);
    if (s == miopenStatusSuccess && !null_out) {
      convs_.emplace_back(c, ConvModel{});
      verify_conv(c);
    }
  }

  int conv_mode() { return in_.from<int>({0, 0, 1, 2, 3, 4, -1}); }
  int geometry_value() { return in_.one_in(4) ? in_.integer() : in_.from<int>({0, 1, 2, 1, 3, 0}); }

  void init_conv() {
    auto [c, ok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    const int mode = conv_mode();
    int v[6];
    for (int& x : v) x = geometry_value();
    const auto s = check("miopenInitConvolutionDescriptor",
                         miopenInitConvolutionDescriptor(c, static_cast<miopenConvolutionMode_t>(mode), v[0], v[1], v[2], v[3],
                                                         v[4], v[5]),
                         OK | BAD);
    const bool valid = ok && mode >= 0 && mode <= 3 && v[0] >= 0 && v[1] >= 0 && v[2] >= 1 && v[3] >= 1 && v[4] >= 1 && v[5] >= 1;
    expect("miopenInitConvolutionDescriptor", s, valid ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && valid) {
      ConvModel& m = *conv_model(c);
      m.mode = mode == 1 ? 1 : 0;
      m.pads = {v[0], v[1]};
      m.strides = {v[2], v[3]};
      m.dilations = {v[4], v[5]};
      verify_conv(c);
    }
  }

  void init_conv_nd() {
    auto [c, ok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    const int dims = in_.from<int>({2, 3, 2, 3, 1, 4, 0, -1});
    int pads[4], strides[4], dilations[4];
    for (int i = 0; i < 4; ++i) pads[i] = geometry_value(), strides[i] = geometry_value(), dilations[i] = geometry_value();
    const int null_at = in_.pick(24);
    const int mode = conv_mode();
    const auto s = check("miopenInitConvolutionNdDescriptor",
                         miopenInitConvolutionNdDescriptor(c, dims, null_at == 0 ? nullptr : pads, null_at == 1 ? nullptr : strides,
                                                           null_at == 2 ? nullptr : dilations,
                                                           static_cast<miopenConvolutionMode_t>(mode)),
                         OK | BAD);
    bool valid = ok && null_at > 2 && (dims == 2 || dims == 3) && mode >= 0 && mode <= 3;
    for (int i = 0; valid && i < dims; ++i) valid = pads[i] >= 0 && strides[i] >= 1 && dilations[i] >= 1;
    expect("miopenInitConvolutionNdDescriptor", s, valid ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && valid) {
      ConvModel& m = *conv_model(c);
      m.mode = mode == 1 ? 1 : 0;
      m.pads.assign(pads, pads + dims);
      m.strides.assign(strides, strides + dims);
      m.dilations.assign(dilations, dilations + dims);
      verify_conv(c);
    }
  }

  void verify_conv(miopenConvolutionDescriptor_t c) {
    const ConvModel& m = *conv_model(c);
    const int sd = static_cast<int>(m.pads.size());
    int dims = -7;
    expect("miopenGetConvolutionSpatialDim", check("miopenGetConvolutionSpatialDim", miopenGetConvolutionSpatialDim(c, &dims), OK | BAD),
           miopenStatusSuccess);
    if (dims != sd) return fail("miopenGetConvolutionSpatialDim disagrees with the model");
    int v[6];
    std::fill(std::begin(v), std::end(v), -7);
    miopenConvolutionMode_t mode;
    poison(mode);
    const auto s = check("miopenGetConvolutionDescriptor",
                         miopenGetConvolutionDescriptor(c, &mode, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]), OK | BAD);
    expect("miopenGetConvolutionDescriptor", s, sd == 2 ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess) {
      if (mode != m.mode || v[0] != m.pads[0] || v[1] != m.pads[1] || v[2] != m.strides[0] || v[3] != m.strides[1] ||
          v[4] != m.dilations[0] || v[5] != m.dilations[1]) {
        return fail("miopenGetConvolutionDescriptor disagrees with what was set");
      }
    } else if (std::any_of(std::begin(v), std::end(v), [](int x) { return x != -7; })) {
      return fail("miopenGetConvolutionDescriptor failed but wrote its outputs");
    }
    int pads[4] = {-7, -7, -7, -7}, strides[4] = {-7, -7, -7, -7}, dilations[4] = {-7, -7, -7, -7}, got = -7;
    const int requested = in_.from<int>({3, 2, 4, 1, 0});
    const auto sn = check("miopenGetConvolutionNdDescriptor",
                          miopenGetConvolutionNdDescriptor(c, requested, &got, pads, strides, dilations, &mode), OK | BAD);
    expect("miopenGetConvolutionNdDescriptor", sn, requested >= sd ? miopenStatusSuccess : miopenStatusBadParm);
    if (sn == miopenStatusSuccess) {
      if (got != sd) return fail("miopenGetConvolutionNdDescriptor gives another spatial dimension count");
      for (int i = 0; i < sd; ++i) {
        if (pads[i] != m.pads[static_cast<std::size_t>(i)] || strides[i] != m.strides[static_cast<std::size_t>(i)] ||
            dilations[i] != m.dilations[static_cast<std::size_t>(i)]) {
          return fail("miopenGetConvolutionNdDescriptor disagrees with what was set");
        }
      }
      if (sd < 4 && (pads[sd] != -7 || strides[sd] != -7 || dilations[sd] != -7)) {
        return fail("miopenGetConvolutionNdDescriptor wrote past the spatial dimensions");
      }
    }
    int groups = -7;
    check("miopenGetConvolutionGroupCount", miopenGetConvolutionGroupCount(c, &groups), OK | BAD);
    if (groups != m.groups) return fail("miopenGetConvolutionGroupCount disagrees with what was set");
    const int expected_attr[3] = {m.fp16_alt, m.deterministic, m.fp8};
    for (int a = 0; a < 3; ++a) {
      int value = -7;
      check("miopenGetConvolutionAttribute", miopenGetConvolutionAttribute(c, static_cast<miopenConvolutionAttrib_t>(a), &value), OK | BAD);
      if (value != expected_attr[a]) return fail("miopenGetConvolutionAttribute " + std::to_string(a) + " disagrees with what was set");
    }
    int tf32 = -7;
    check("hipfuseGetConvolutionAllowTF32", hipfuseGetConvolutionAllowTF32(c, &tf32), OK | BAD);
    if (tf32 != m.tf32) return fail("hipfuseGetConvolutionAllowTF32 disagrees with what was set");
  }

  void get_conv() {
    auto [c, ok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    if (ok && !in_.one_in(3)) return verify_conv(c);
    int v[6];
    miopenConvolutionMode_t mode{};
    const int null_at = in_.pick(8);
    int* outs[6];
    for (int i = 0; i < 6; ++i) outs[i] = null_at == i + 1 ? nullptr : &v[i];
    const auto s = check("miopenGetConvolutionDescriptor",
                         miopenGetConvolutionDescriptor(c, null_at == 0 ? nullptr : &mode, outs[0], outs[1], outs[2], outs[3],
                                                        outs[4], outs[5]),
                         OK | BAD);
    if (!ok || null_at <= 6) expect("miopenGetConvolutionDescriptor", s, miopenStatusBadParm);
    int dims = 0;
    const bool null_dims = in_.flag();
    const auto s2 = check("miopenGetConvolutionSpatialDim", miopenGetConvolutionSpatialDim(c, null_dims ? nullptr : &dims), OK | BAD);
    expect("miopenGetConvolutionSpatialDim", s2, ok && !null_dims ? miopenStatusSuccess : miopenStatusBadParm);
    int arr[4], got = 0;
    const int which = in_.pick(5);
    const auto s3 = check("miopenGetConvolutionNdDescriptor",
                          miopenGetConvolutionNdDescriptor(c, 4, which == 0 ? nullptr : &got, which == 1 ? nullptr : arr,
                                                           which == 2 ? nullptr : arr, which == 3 ? nullptr : arr,
                                                           which == 4 ? nullptr : &mode),
                          OK | BAD);
    expect("miopenGetConvolutionNdDescriptor", s3, miopenStatusBadParm);
  }

  void group_count() {
    auto [c, ok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    const int groups = in_.from<int>({1, 2, 4, 0, -1, 3, 8, INT_MAX});
    const auto s = check("miopenSetConvolutionGroupCount", miopenSetConvolutionGroupCount(c, groups), OK | BAD);
    expect("miopenSetConvolutionGroupCount", s, ok && groups >= 1 ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && ok) {
      conv_model(c)->groups = groups;
      verify_conv(c);
    }
    const bool null_out = in_.one_in(4);
    int got = -7;
    const auto s2 = check("miopenGetConvolutionGroupCount", miopenGetConvolutionGroupCount(c, null_out ? nullptr : &got), OK | BAD);
    expect("miopenGetConvolutionGroupCount", s2, ok && !null_out ? miopenStatusSuccess : miopenStatusBadParm);
    if (s2 != miopenStatusSuccess && got != -7) fail("miopenGetConvolutionGroupCount failed but wrote its output");
  }

  void conv_output_dim() {
    auto [c, cok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    auto [x, xok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [w, wok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    int out[8];
    std::fill(std::begin(out), std::end(out), -7);
    const int null_at = in_.pick(12);
    int* outs[4];
    for (int i = 0; i < 4; ++i) outs[i] = null_at == i ? nullptr : &out[i];
    const auto s = check("miopenGetConvolutionForwardOutputDim",
                         miopenGetConvolutionForwardOutputDim(c, x, w, outs[0], outs[1], outs[2], outs[3]), OK | BAD);
    if (!cok || !xok || !wok || null_at < 4) expect("miopenGetConvolutionForwardOutputDim", s, miopenStatusBadParm);
    if (s != miopenStatusSuccess && std::any_of(std::begin(out), std::end(out), [](int v) { return v != -7; })) {
      return fail("miopenGetConvolutionForwardOutputDim failed but wrote its outputs");
    }
    if (s == miopenStatusSuccess) check_output_dims("miopenGetConvolutionForwardOutputDim", c, x, w, out, 4);

    std::fill(std::begin(out), std::end(out), -7);
    int dims = -7;
    const int which = in_.pick(8);
    const auto s2 = check("miopenGetConvolutionNdForwardOutputDim",
                          miopenGetConvolutionNdForwardOutputDim(c, x, w, which == 0 ? nullptr : &dims, which == 1 ? nullptr : out),
                          OK | BAD);
    if (!cok || !xok || !wok || which < 2) expect("miopenGetConvolutionNdForwardOutputDim", s2, miopenStatusBadParm);
    if (s2 == miopenStatusSuccess) check_output_dims("miopenGetConvolutionNdForwardOutputDim", c, x, w, out, dims);
  }

  // The output lengths of a successful query, recomputed from the models.
  void check_output_dims(const char* fn, void* c, void* x, void* w, const int* out, int dims) {
    const ConvModel& cm = *conv_model(c);
    const TensorModel& xm = *tensor_model(x);
    const TensorModel& wm = *tensor_model(w);
    const std::size_t sd = cm.pads.size();
    if (xm.lengths.size() != sd + 2 || wm.lengths.size() != sd + 2 || static_cast<std::size_t>(dims) != sd + 2) {
      return fail(std::string(fn) + " succeeded with mismatched ranks");
    }
    const i128 k = cm.mode == 0 ? wm.lengths[0] : wm.lengths[1] * cm.groups;
    if (out[0] != xm.lengths[0] || out[1] != k) return fail(std::string(fn) + ": N or K is wrong");
    for (std::size_t d = 0; d < sd; ++d) {
      const i128 in = xm.lengths[d + 2], filter = wm.lengths[d + 2];
      const i128 extent = i128{cm.dilations[d]} * (filter - 1) + 1;
      i128 expected;
      if (cm.mode == 0) {
        const i128 num = in + 2 * i128{cm.pads[d]} - extent;
        // C++ division truncates toward zero, as the formula in the header does.
        expected = std::max<i128>(1, num / cm.strides[d] + 1);
      } else {
        expected = i128{cm.strides[d]} * (in - 1) + extent - 2 * i128{cm.pads[d]};
      }
      if (out[d + 2] != expected) {
        return fail(std::string(fn) + ": spatial length " + std::to_string(d) + " is " + std::to_string(out[d + 2]) +
                    ", expected " + text(expected));
      }
    }
  }

  void conv_attribute() {
    auto [c, ok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    const int attr = in_.from<int>({0, 1, 2, 3, -1});
    const int value = in_.from<int>({0, 1, -1, 2, 1, 0});
    const auto s = check("miopenSetConvolutionAttribute",
                         miopenSetConvolutionAttribute(c, static_cast<miopenConvolutionAttrib_t>(attr), value), OK | BAD);
    const bool in_range = (attr == 0 && value >= -1 && value <= 1) || ((attr == 1 || attr == 2) && value >= 0 && value <= 1);
    expect("miopenSetConvolutionAttribute", s, ok && in_range ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && ok) {
      ConvModel& m = *conv_model(c);
      (attr == 0 ? m.fp16_alt : attr == 1 ? m.deterministic : m.fp8) = value;
    }
    const int allow = in_.from<int>({0, 1, 2, -1});
    const auto s2 = check("hipfuseSetConvolutionAllowTF32", hipfuseSetConvolutionAllowTF32(c, allow), OK | BAD);
    expect("hipfuseSetConvolutionAllowTF32", s2, ok && (allow == 0 || allow == 1) ? miopenStatusSuccess : miopenStatusBadParm);
    if (s2 == miopenStatusSuccess && ok) conv_model(c)->tf32 = allow;
    if (ok) verify_conv(c);
    int got = -7;
    const bool null_out = in_.one_in(4);
    const auto s3 = check("miopenGetConvolutionAttribute",
                          miopenGetConvolutionAttribute(c, static_cast<miopenConvolutionAttrib_t>(attr), null_out ? nullptr : &got),
                          OK | BAD);
    expect("miopenGetConvolutionAttribute", s3, ok && !null_out && attr >= 0 && attr <= 2 ? miopenStatusSuccess : miopenStatusBadParm);
    const auto s4 = check("hipfuseGetConvolutionAllowTF32", hipfuseGetConvolutionAllowTF32(c, null_out ? nullptr : &got), OK | BAD);
    expect("hipfuseGetConvolutionAllowTF32", s4, ok && !null_out ? miopenStatusSuccess : miopenStatusBadParm);
  }

  void destroy_conv() {
    auto [c, ok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    const auto s = check("miopenDestroyConvolutionDescriptor", miopenDestroyConvolutionDescriptor(c), OK | BAD);
    expect("miopenDestroyConvolutionDescriptor", s, ok || c == nullptr ? miopenStatusSuccess : miopenStatusBadParm);
    if (ok && s == miopenStatusSuccess) {
      convs_.erase(std::find_if(convs_.begin(), convs_.end(), [target = c](auto& e) { return e.first == target; }));
      died(c);
    }
  }

  // Activations --------------------------------------------------------------------------
  void create_act() {
    if (acts_.size() >= kMaxPerKind) return;
    const bool null_out = in_.one_in(16);
    miopenActivationDescriptor_t a = nullptr;
    const auto s = check("miopenCreateActivationDescriptor", miopenCreateActivationDescriptor(null_out ? nullptr : &a), OK | BAD | ALLOC);
    expect("miopenCreateActivationDescriptor", s, null_out ? miopenStatusBadParm : miopenStatusSuccess);
    if (s == miopenStatusSuccess && !null_out) acts_.emplace_back(a, ActModel{});
  }

  int activation_mode() { return in_.from<int>({3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, -1}); }

  void set_get_act() {
    auto [a, ok] = pick_as<miopenActivationDescriptor_t>(Kind::act);
    const int mode = activation_mode();
    const double alpha = in_.real(), beta = in_.real(), gamma = in_.real();
    const auto s = check("miopenSetActivationDescriptor",
                         miopenSetActivationDescriptor(a, static_cast<miopenActivationMode_t>(mode), alpha, beta, gamma), OK | BAD);
    expect("miopenSetActivationDescriptor", s, ok && valid_activation(mode) ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && ok) *act_model(a) = ActModel{mode, alpha, beta, gamma};
    miopenActivationMode_t got_mode;
    poison(got_mode);
    double g[3] = {-7, -7, -7};
    const int null_at = in_.pick(8);
    const auto s2 = check("miopenGetActivationDescriptor",
                          miopenGetActivationDescriptor(a, null_at == 0 ? nullptr : &got_mode, null_at == 1 ? nullptr : &g[0],
                                                        null_at == 2 ? nullptr : &g[1], null_at == 3 ? nullptr : &g[2]),
                          OK | BAD);
    expect("miopenGetActivationDescriptor", s2, ok && null_at > 3 ? miopenStatusSuccess : miopenStatusBadParm);
    if (s2 == miopenStatusSuccess) {
      const ActModel& m = *act_model(a);
      if (got_mode != m.mode || !same_bits(g[0], m.alpha) || !same_bits(g[1], m.beta) || !same_bits(g[2], m.gamma)) {
        fail("miopenGetActivationDescriptor disagrees with what was set");
      }
    } else if (!poisoned(got_mode) || g[0] != -7 || g[1] != -7 || g[2] != -7) {
      fail("miopenGetActivationDescriptor failed but wrote its outputs");
    }
  }

  void destroy_act() {
    auto [a, ok] = pick_as<miopenActivationDescriptor_t>(Kind::act);
    const auto s = check("miopenDestroyActivationDescriptor", miopenDestroyActivationDescriptor(a), OK | BAD);
    expect("miopenDestroyActivationDescriptor", s, ok || a == nullptr ? miopenStatusSuccess : miopenStatusBadParm);
    if (ok && s == miopenStatusSuccess) {
      acts_.erase(std::find_if(acts_.begin(), acts_.end(), [target = a](auto& e) { return e.first == target; }));
      died(a);
    }
  }

  // Plans and ops ------------------------------------------------------------------------
  void create_plan() {
    if (plans_.size() >= kMaxPerKind) return;
    auto [t, ok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const int direction = in_.from<int>({0, 0, 0, 1, 2, -1});
    const bool null_out = in_.one_in(16);
    miopenFusionPlanDescriptor_t p = nullptr;
    const auto s = check("miopenCreateFusionPlan",
                         miopenCreateFusionPlan(null_out ? nullptr : &p, static_cast<miopenFusionDirection_t>(direction), t),
                         OK | BAD | ALLOC);
    bool valid = ok && !null_out && (direction == 0 || direction == 1);
    if (valid) {
      const TensorModel& m = *tensor_model(t);
      valid = m.lengths.size() == 4 || m.lengths.size() == 5;
    }
    expect("miopenCreateFusionPlan", s, valid ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && valid) {
      plans_.push_back(PlanModel{p, direction == 1, {}});
      verify_plan(p);
    }
  }

  void verify_plan(miopenFusionPlanDescriptor_t p) {
    const PlanModel& m = *plan_model(p);
    hipfuseFusionPlanInfo info{};
    info.opCount = -7;
    expect("hipfuseGetFusionPlanInfo", check("hipfuseGetFusionPlanInfo", hipfuseGetFusionPlanInfo(p, &info), OK | BAD),
           miopenStatusSuccess);
    if (info.opCount != static_cast<int>(m.ops.size())) {
      return fail("hipfuseGetFusionPlanInfo reports " + std::to_string(info.opCount) + " ops, the harness made " +
                  std::to_string(m.ops.size()));
    }
    if (info.compiled != 0) return fail("a plan reports itself compiled although no GPU compiled it");
    if (info.key == nullptr || info.solver == nullptr) return fail("hipfuseGetFusionPlanInfo gave a null string");
    for (std::size_t i = 0; i < m.ops.size(); ++i) {
      miopenFusionOpDescriptor_t op = nullptr;
      expect("miopenFusionPlanGetOp",
             check("miopenFusionPlanGetOp", miopenFusionPlanGetOp(p, static_cast<int>(i), &op), OK | BAD), miopenStatusSuccess);
      if (op != m.ops[i].op) return fail("miopenFusionPlanGetOp(" + std::to_string(i) + ") is not the handle its create returned");
    }
  }

  void destroy_plan() {
    auto [p, ok] = pick_as<miopenFusionPlanDescriptor_t>(Kind::plan);
    std::vector<OpModel> ops;
    if (ok) {
      verify_plan(p);
      ops = plan_model(p)->ops;
    }
    const auto s = check("miopenDestroyFusionPlan", miopenDestroyFusionPlan(p), OK | BAD);
    expect("miopenDestroyFusionPlan", s, ok || p == nullptr ? miopenStatusSuccess : miopenStatusBadParm);
    if (ok && s == miopenStatusSuccess) {
      plans_.erase(std::find_if(plans_.begin(), plans_.end(), [target = p](auto& e) { return e.plan == target; }));
      for (auto& op : ops) died(op.op);  // hipfuse quarantines the ops first, then the plan
      died(p);
    }
  }

  void create_op() {
    auto [p, pok] = pick_as<miopenFusionPlanDescriptor_t>(Kind::plan);
    if (pok && plan_model(p)->ops.size() >= kMaxOpsPerPlan) return;
    const int kind = in_.pick(kOpKinds);
    const bool null_out = in_.one_in(16);
    miopenFusionOpDescriptor_t op = nullptr;
    miopenFusionOpDescriptor_t* out = null_out ? nullptr : &op;
    const std::size_t before = pok ? plan_model(p)->ops.size() : 0;
    miopenStatus_t s{};
    const char* fn = "";
    bool must_succeed = pok && !null_out;  // refined below for the kinds with nothing else to check
    bool may_succeed = pok && !null_out;
    bool running = false;
    switch (kind) {
      case kConv: {
        auto [c, cok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
        auto [w, wok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
        fn = "miopenCreateOpConvForward";

        s = check(fn, miopenCreateOpConvForward(p, out, c, w), OK | BAD | ALLOC);
        may_succeed = may_succeed && cok && wok;
        must_succeed = false;
        break;
      }
      case kBias: {
        auto [b, bok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
        fn = "miopenCreateOpBiasForward";
        s = check(fn, miopenCreateOpBiasForward(p, out, b), OK | BAD | ALLOC);
        may_succeed = may_succeed && bok;
        must_succeed = false;
        break;
      }
      case kActFwd:
      case kActBwd: {
        const int mode = activation_mode();
        fn = kind == kActFwd ? "miopenCreateOpActivationForward" : "miopenCreateOpActivationBackward";
        s = check(fn,
                  kind == kActFwd ? miopenCreateOpActivationForward(p, out, static_cast<miopenActivationMode_t>(mode))
                                  : miopenCreateOpActivationBackward(p, out, static_cast<miopenActivationMode_t>(mode)),
                  OK | BAD | ALLOC);
        may_succeed = may_succeed && valid_activation(mode);
        must_succeed = may_succeed;
        break;
      }
      case kBnInf: {
        const int mode = in_.from<int>({1, 0, 2, -1});
        auto [d, dok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
        fn = "miopenCreateOpBatchNormInference";
        s = check(fn, miopenCreateOpBatchNormInference(p, out, static_cast<miopenBatchNormMode_t>(mode), d), OK | BAD | ALLOC);
        may_succeed = may_succeed && dok && valid_bn_mode(mode);
        must_succeed = false;
        break;
      }
      case kBnFwd: {
        const int mode = in_.from<int>({1, 0, 2, -1});
        running = in_.flag();
        fn = "miopenCreateOpBatchNormForward";
        s = check(fn, miopenCreateOpBatchNormForward(p, out, static_cast<miopenBatchNormMode_t>(mode), running), OK | BAD | ALLOC);
        may_succeed = may_succeed && valid_bn_mode(mode);
        must_succeed = may_succeed;
        break;
      }
      case kBnBwd: {
        const int mode = in_.from<int>({1, 0, 2, -1});
        fn = "miopenCreateOpBatchNormBackward";
        s = check(fn, miopenCreateOpBatchNormBackward(p, out, static_cast<miopenBatchNormMode_t>(mode)), OK | BAD | ALLOC);
        may_succeed = may_succeed && valid_bn_mode(mode);
        must_succeed = may_succeed;
        break;
      }
      case kResidual: {
        auto [z, zok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
        fn = "hipfuseCreateOpResidualAdd";
        s = check(fn, hipfuseCreateOpResidualAdd(p, out, z), OK | BAD | ALLOC);
        may_succeed = may_succeed && zok;
        must_succeed = false;
        break;
      }
    }
    if (!broken_.empty()) return;
    if (must_succeed) expect(fn, s, miopenStatusSuccess);
    if (!may_succeed) expect(fn, s, miopenStatusBadParm);
    if (s == miopenStatusSuccess && may_succeed) {
      if (op == nullptr) return fail(std::string(fn) + " succeeded with a null op handle");
      if (op_model(op) != nullptr) return fail(std::string(fn) + " returned the handle of an existing op");
      plan_model(p)->ops.push_back(OpModel{op, kind, running});
    } else if (out != nullptr && op != nullptr) {
      return fail(std::string(fn) + " failed but wrote its op handle");
    }
    if (pok) {
      if (s != miopenStatusSuccess && plan_model(p)->ops.size() != before) return fail("bookkeeping");
      verify_plan(p);  // a failed create leaves the op count unchanged
    }
  }

  void get_op() {
    auto [p, ok] = pick_as<miopenFusionPlanDescriptor_t>(Kind::plan);
    const int count = ok ? static_cast<int>(plan_model(p)->ops.size()) : 0;
    const int index = in_.one_in(4) ? in_.integer() : in_.pick(static_cast<std::size_t>(count) + 2) - 1;
    const bool null_out = in_.one_in(8);
    miopenFusionOpDescriptor_t op = reinterpret_cast<miopenFusionOpDescriptor_t>(&junk_);
    const auto s = check("miopenFusionPlanGetOp", miopenFusionPlanGetOp(p, index, null_out ? nullptr : &op), OK | BAD);
    const bool valid = ok && !null_out && index >= 0 && index < count;
    expect("miopenFusionPlanGetOp", s, valid ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && valid && op != plan_model(p)->ops[static_cast<std::size_t>(index)].op) {
      fail("miopenFusionPlanGetOp returned another op's handle");
    }
    if (s != miopenStatusSuccess && op != reinterpret_cast<miopenFusionOpDescriptor_t>(&junk_)) {
      fail("miopenFusionPlanGetOp failed but wrote its output");
    }
  }

  void plan_queries() {
    auto [p, ok] = pick_as<miopenFusionPlanDescriptor_t>(Kind::plan);
    auto [h, hok] = pick_as<miopenHandle_t>(Kind::handle);
    std::size_t ws = 0x5a5a;
    const bool null_ws = in_.one_in(8);
    const int ws_algo = in_.from<int>({1, 0, 3, 5, 42});
    const auto s = check("miopenFusionPlanGetWorkSpaceSize", miopenFusionPlanGetWorkSpaceSize(h, p, null_ws ? nullptr : &ws, static_cast<miopenConvFwdAlgorithm_t>(ws_algo)),
                         OK | BAD);
    expect("miopenFusionPlanGetWorkSpaceSize", s, ok && hok && !null_ws ? miopenStatusSuccess : miopenStatusBadParm);
    if (s == miopenStatusSuccess && ws != 0) fail("miopenFusionPlanGetWorkSpaceSize is not 0");
    if (s != miopenStatusSuccess && ws != 0x5a5a) fail("miopenFusionPlanGetWorkSpaceSize failed but wrote its output");

    const int request = in_.from<int>({2, 1, 0, 3, 4, -1, INT_MAX, INT_MIN});
    const int which = in_.pick(10);  // 0: null count, 1: null algos
    int count = -7;
    miopenConvFwdAlgorithm_t algos[4];
    poison(algos);
    // requestAlgoCount is the capacity of algos; never claim more than 4 unless it is refused
    // (negative) or hipfuse writes at most 2 anyway.
    const auto s2 = check("miopenFusionPlanConvolutionGetAlgo",
                          miopenFusionPlanConvolutionGetAlgo(p, request, which == 0 ? nullptr : &count,
                                                             which == 1 ? nullptr : algos),
                          OK | BAD);
    const bool valid = ok && which != 0 && request >= 0 && !(which == 1 && request > 0);
    expect("miopenFusionPlanConvolutionGetAlgo", s2, valid ? miopenStatusSuccess : miopenStatusBadParm);
    if (s2 == miopenStatusSuccess) {
      const int n = std::min(request, 2);
      if (count != n) return fail("miopenFusionPlanConvolutionGetAlgo count is wrong");
      if (n >= 1 && algos[0] != miopenConvolutionFwdAlgoDirect) return fail("GetAlgo[0] is not Direct");
      if (n >= 2 && algos[1] != miopenConvolutionFwdAlgoWinograd) return fail("GetAlgo[1] is not Winograd");
      if (!poisoned(algos[2])) return fail("miopenFusionPlanConvolutionGetAlgo wrote more than 2 algorithms");
    } else if (count != -7 || !poisoned(algos[0])) {
      return fail("miopenFusionPlanConvolutionGetAlgo failed but wrote its outputs");
    }
    const int algo = in_.from<int>({1, 3, 0, 2, 5, 4, 6, -1});
    const auto s3 = check("miopenFusionPlanConvolutionSetAlgo",
                          miopenFusionPlanConvolutionSetAlgo(p, static_cast<miopenConvFwdAlgorithm_t>(algo)), OK | BAD);
    const bool algo_ok = algo == 0 || algo == 1 || algo == 2 || algo == 3 || algo == 5;
    expect("miopenFusionPlanConvolutionSetAlgo", s3, ok && algo_ok ? miopenStatusSuccess : miopenStatusBadParm);

    hipfuseFusionPlanInfo info{};
    info.opCount = -7;
    const bool null_info = in_.one_in(8);
    const auto s4 = check("hipfuseGetFusionPlanInfo", hipfuseGetFusionPlanInfo(p, null_info ? nullptr : &info), OK | BAD);
    expect("hipfuseGetFusionPlanInfo", s4, ok && !null_info ? miopenStatusSuccess : miopenStatusBadParm);
    if (s4 != miopenStatusSuccess && info.opCount != -7) return fail("hipfuseGetFusionPlanInfo failed but wrote its output");
    if (ok) verify_plan(p);
  }

  // What compiling would choose, from the solvers' own checks; records a non-hipfuse
  // exception from a solver as a broken rule.
  struct DryRun {
    bool applies = false;                  // a solver accepts the plan
    std::optional<miopenStatus_t> thrown;  // the status kernels() threw, if any
  };
  DryRun dry_compile(miopenFusionPlanDescriptor_t p, const Target& target) {
    DryRun r;
    const FusionPlan& plan = *static_cast<api::PlanObject*>(p)->plan;
    if (plan.direction() == FusionDirection::horizontal || plan.op_count() == 0) return r;
    for (const Solver* solver : solver_registry()) {
      Applicability a;
      try {
        a = solver->applies(plan, target);
      } catch (const std::exception& e) {
        fail(std::string(solver->name()) + "::applies threw " + typeid(e).name() + ": " + e.what() + " for [" + plan.key() + "]");
        return r;
      }
      if (!a.applies) {
        if (a.reason.empty()) fail(std::string(solver->name()) + " refused [" + plan.key() + "] without a reason");
        continue;
      }
      r.applies = true;
      try {
        for (const auto& request : solver->kernels(plan, target)) {
          (void)rt::KernelCompiler::instance().key_for(request, target.arch, target.warp_size);
        }
      } catch (const Error& e) {
        r.thrown = static_cast<miopenStatus_t>(e.status());
      } catch (const std::exception& e) {
        fail(std::string(solver->name()) + "::kernels threw " + typeid(e).name() + ": " + e.what() + " for [" + plan.key() + "]");
      }
      return r;
    }
    return r;
  }

  void dry_compile_step() {
    auto pool = live(Kind::plan);
    if (pool.empty()) return;
    auto* p = static_cast<miopenFusionPlanDescriptor_t>(pool[static_cast<std::size_t>(in_.pick(pool.size()))]);
    Target t;
    t.device = -1;
    t.arch = in_.from<int>({0, 0, 1, 2}) == 0 ? "sm_90" : (in_.flag() ? "sm_80" : "sm_100");
    t.multiprocessors = in_.from<int>({0, 132, 1, 7});
    note("dry compile of [" + static_cast<api::PlanObject*>(p)->plan->key() + "] for " + t.arch);
    (void)dry_compile(p, t);
  }

  void compile() {
    if (gpu_present()) return;  // a real compile would let execute() launch on fake pointers
    auto [h, hok] = pick_as<miopenHandle_t>(Kind::handle);
    auto [p, pok] = pick_as<miopenFusionPlanDescriptor_t>(Kind::plan);
    DryRun dry;
    if (hok && pok) dry = dry_compile(p, static_cast<api::HandleObject*>(h)->target);
    if (!broken_.empty()) return;
    const auto s = check("miopenCompileFusionPlan", miopenCompileFusionPlan(h, p), BAD | UNSUPPORTED | NOT_IMPL | INTERNAL | ALLOC);
    if (!hok || !pok) return expect("miopenCompileFusionPlan", s, miopenStatusBadParm);
    const PlanModel& m = *plan_model(p);
    if (m.horizontal) expect("miopenCompileFusionPlan", s, miopenStatusNotImplemented);
    else if (m.ops.empty() || !dry.applies) expect("miopenCompileFusionPlan", s, miopenStatusUnsupportedOp);
    else if (s == miopenStatusUnsupportedOp) fail("miopenCompileFusionPlan says unsupported, but " + std::string("a solver accepts the plan"));
    verify_plan(p);
  }

  void compile_for_arch() {
    auto [p, ok] = pick_as<miopenFusionPlanDescriptor_t>(Kind::plan);
    static const char* const arches[] = {"sm_90", nullptr, "", "sm_", "sm_9", "gfx90a", "volta", "sm_90a", "sm_100f", "sm_90b", "sm_x0"};
    const char* arch = arches[in_.pick(std::size(arches))];
    std::string raw;
    if (in_.one_in(16)) {  // a raw string of up to 8 bytes
      const int n = in_.pick(9);
      for (int i = 0; i < n; ++i) raw += static_cast<char>(in_.byte() | 1);  // no NUL inside
      arch = raw.c_str();
    }
    const bool known = arch != nullptr && rt::is_known_arch(arch);
    DryRun dry;
    if (ok && known) {
      Target t;
      t.device = -1;
      t.arch = arch;
      t.warp_size = rt::warp_size_for_arch(arch);
      dry = dry_compile(p, t);
      if (!broken_.empty()) return;
      if (dry.applies && !dry.thrown && !options_.allow_rtc) return;  // would run hipRTC
    }
    const auto s = check("hipfuseCompileFusionPlanForArch", hipfuseCompileFusionPlanForArch(p, arch),
                         OK | BAD | UNSUPPORTED | NOT_IMPL | INTERNAL | ALLOC);
    if (!ok || !known) return expect("hipfuseCompileFusionPlanForArch", s, miopenStatusBadParm);
    const PlanModel& m = *plan_model(p);
    if (m.horizontal) expect("hipfuseCompileFusionPlanForArch", s, miopenStatusNotImplemented);
    else if (m.ops.empty() || !dry.applies) expect("hipfuseCompileFusionPlanForArch", s, miopenStatusUnsupportedOp);
    else if (dry.thrown) expect("hipfuseCompileFusionPlanForArch", s, *dry.thrown);
    verify_plan(p);  // offline compiles leave the plan uncompiled
  }

  // Operator args ------------------------------------------------------------------------
  void create_args() {
    if (args_.size() >= kMaxPerKind) return;
    const bool null_out = in_.one_in(16);
    miopenOperatorArgs_t a = nullptr;
    const auto s = check("miopenCreateOperatorArgs", miopenCreateOperatorArgs(null_out ? nullptr : &a), OK | BAD | ALLOC);
    expect("miopenCreateOperatorArgs", s, null_out ? miopenStatusBadParm : miopenStatusSuccess);
    if (s == miopenStatusSuccess && !null_out) args_.push_back(a);
  }

  void destroy_args() {
    auto [a, ok] = pick_as<miopenOperatorArgs_t>(Kind::args);
    const auto s = check("miopenDestroyOperatorArgs", miopenDestroyOperatorArgs(a), OK | BAD);
    expect("miopenDestroyOperatorArgs", s, ok || a == nullptr ? miopenStatusSuccess : miopenStatusBadParm);
    if (ok && s == miopenStatusSuccess) {
      args_.erase(std::find(args_.begin(), args_.end(), a));
      died(a);
    }
  }

  // An op for a setter of kind `kind`: mostly a live op of that kind when there is one.
  std::pair<miopenFusionOpDescriptor_t, bool> pick_op(int kind) {
    if (!in_.one_in(3)) {
      std::vector<miopenFusionOpDescriptor_t> right;
      for (auto& plan : plans_) {
        for (auto& op : plan.ops) {
          if (op.kind == kind) right.push_back(op.op);
        }
      }
      if (!right.empty()) return {right[static_cast<std::size_t>(in_.pick(right.size()))], true};
    }
    auto [op, ok] = pick_as<miopenFusionOpDescriptor_t>(Kind::op);
    return {op, ok};
  }
  const void* device_pointer() { return in_.one_in(6) ? nullptr : fake_device(1 + in_.pick(64)); }

  void set_op_args() {
    auto [a, aok] = pick_as<miopenOperatorArgs_t>(Kind::args);
    const int kind = in_.pick(kOpKinds);
    auto [op, ook] = pick_op(kind);
    const OpModel* model = ook ? op_model(op) : nullptr;
    const bool right_kind = model != nullptr && model->kind == kind;
    float alpha = 1, beta = 0;
    const void* pa = in_.flag() ? &alpha : nullptr;
    const void* pb = in_.flag() ? &beta : nullptr;
    // Every value is read before the call: argument evaluation order differs between
    // compilers, and an input must mean the same calls under clang (fuzzer) and g++ (replay).
    void* ptr[7];
    for (auto& q : ptr) q = const_cast<void*>(device_pointer());
    double real[3];
    for (auto& r : real) r = in_.real();
    miopenStatus_t s{};
    const char* fn = "";
    bool extra_ok = true;
    switch (kind) {
      case kConv:
        fn = "miopenSetOpArgsConvForward";
        s = miopenSetOpArgsConvForward(a, op, pa, pb, ptr[0]);
        break;
      case kBias:
        fn = "miopenSetOpArgsBiasForward";
        s = miopenSetOpArgsBiasForward(a, op, pa, pb, ptr[0]);
        break;
      case kActFwd:
        fn = "miopenSetOpArgsActivForward";
        s = miopenSetOpArgsActivForward(a, op, pa, pb, real[0], real[1], real[2]);
        break;
      case kActBwd:
        fn = "miopenSetOpArgsActivBackward";
        s = miopenSetOpArgsActivBackward(a, op, pa, pb, ptr[0], ptr[1], real[0], real[1], real[2]);
        break;
      case kBnInf:
        fn = "miopenSetOpArgsBatchNormInference";
        s = miopenSetOpArgsBatchNormInference(a, op, pa, pb, ptr[0], ptr[1], ptr[2], ptr[3], real[0]);
        break;
      case kBnFwd:
        fn = "miopenSetOpArgsBatchNormForward";
        extra_ok = !(model != nullptr && model->running && (ptr[4] == nullptr || ptr[5] == nullptr));
        s = miopenSetOpArgsBatchNormForward(a, op, pa, pb, ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5], real[0], real[1]);
        break;
      case kBnBwd:
        fn = "miopenSetOpArgsBatchNormBackward";
        s = miopenSetOpArgsBatchNormBackward(a, op, pa, pb, ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5], ptr[6]);
        break;
      case kResidual:
        fn = "hipfuseSetOpArgsResidualAdd";
        s = hipfuseSetOpArgsResidualAdd(a, op, real[0], ptr[0]);
        break;
    }
    check(fn, s, OK | BAD | ALLOC);
    expect(fn, s, aok && ook && right_kind && extra_ok ? miopenStatusSuccess : miopenStatusBadParm);
    if (alpha != 1 || beta != 0) fail(std::string(fn) + " wrote through alpha/beta");
  }

  // Execution ----------------------------------------------------------------------------
  void execute() {
    auto [h, hok] = pick_as<miopenHandle_t>(Kind::handle);
    auto [p, pok] = pick_as<miopenFusionPlanDescriptor_t>(Kind::plan);
    auto [x, xok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [y, yok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [a, aok] = pick_as<miopenOperatorArgs_t>(Kind::args);
    const void* in = device_pointer();
    void* out = const_cast<void*>(device_pointer());
    const auto s = check("miopenExecuteFusionPlan", miopenExecuteFusionPlan(h, p, x, in, y, out, a), BAD | INTERNAL | ALLOC);
    // Nothing is ever compiled here, so even a fully valid call is refused ("not compiled").
    if (!hok || !pok || !xok || !yok || !aok) expect("miopenExecuteFusionPlan", s, miopenStatusBadParm);
  }

  void one_shot() {
    if (gpu_present()) return;  // would compile and launch on fake pointers
    auto [h, hok] = pick_as<miopenHandle_t>(Kind::handle);
    auto [x, xok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [w, wok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [c, cok] = pick_as<miopenConvolutionDescriptor_t>(Kind::conv);
    auto [z, zok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [b, bok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    auto [act, actok] = pick_as<miopenActivationDescriptor_t>(Kind::act);
    auto [y, yok] = pick_as<miopenTensorDescriptor_t>(Kind::tensor);
    const float alpha1 = static_cast<float>(in_.real());
    const float alpha2 = static_cast<float>(in_.real());
    const void* pa1 = in_.flag() ? &alpha1 : nullptr;
    const void* pa2 = in_.flag() ? &alpha2 : nullptr;
    const void* ptr[5];
    for (auto& q : ptr) q = device_pointer();
    const int algo = in_.from<int>({1, 0, 3, 5, 99});
    void* workspace = in_.flag() ? fake_device(99) : nullptr;
    const std::size_t workspace_bytes = in_.flag() ? 0 : 1024;
    const auto s = check("miopenConvolutionBiasActivationForward",
                         miopenConvolutionBiasActivationForward(h, pa1, x, ptr[0], w, ptr[1], c, static_cast<miopenConvFwdAlgorithm_t>(algo), workspace, workspace_bytes,
                                                                pa2, z, ptr[2], b, ptr[3], act, y, const_cast<void*>(ptr[4])),
                         BAD | UNSUPPORTED | INTERNAL | ALLOC);
    if (!hok || !xok || !wok || !cok || !zok || !bok || !actok || !yok) {
      expect("miopenConvolutionBiasActivationForward", s, miopenStatusBadParm);
    }
  }

  // Handles ------------------------------------------------------------------------------
  void fake_handle() {
    if (in_.flag() && handles_.size() < 3) {
      // A handle without a GPU, as the API unit tests make (miopenCreate needs a GPU).
      auto* h = new api::HandleObject();
      h->target.device = 0;
      h->target.arch = "sm_90";
      handles_.push_back(HandleModel{h, nullptr});
      note("fake handle");
      return;
    }
    auto [h, ok] = pick_as<miopenHandle_t>(Kind::handle);
    const auto s = check("miopenDestroy", miopenDestroy(h), OK | BAD);
    expect("miopenDestroy", s, ok || h == nullptr ? miopenStatusSuccess : miopenStatusBadParm);
    if (ok && s == miopenStatusSuccess) {
      handles_.erase(std::find_if(handles_.begin(), handles_.end(), [target = h](auto& e) { return e.handle == target; }));
      died(h);
    }
  }

  void handle_calls() {
    switch (in_.pick(7)) {
      case 0:
      case 1: {
        const bool null_out = in_.one_in(4);
        miopenHandle_t h = nullptr;
        const bool with_stream = in_.flag();
        const char* fn = with_stream ? "miopenCreateWithStream" : "miopenCreate";
        const auto s = check(fn, with_stream ? miopenCreateWithStream(null_out ? nullptr : &h, nullptr) : miopenCreate(null_out ? nullptr : &h),
                             OK | BAD | NOT_INIT | INTERNAL | ALLOC);
        if (null_out) expect(fn, s, miopenStatusBadParm);
        else if (!gpu_present()) expect(fn, s, miopenStatusNotInitialized);
        if (s == miopenStatusSuccess) {
          // A real handle: never kept (it could compile and then launch on fake pointers).
          expect("miopenDestroy", check("miopenDestroy", miopenDestroy(h), OK | BAD), miopenStatusSuccess);
          died(h);
        } else if (h != nullptr) {
          fail(std::string(fn) + " failed but wrote its handle");
        }
        return;
      }
      case 2: {
        auto [h, ok] = pick_as<miopenHandle_t>(Kind::handle);
        auto stream = in_.flag() ? nullptr : reinterpret_cast<miopenAcceleratorQueue_t>(fake_device(7));
        const auto s = check("miopenSetStream", miopenSetStream(h, stream), OK | BAD);
        expect("miopenSetStream", s, ok ? miopenStatusSuccess : miopenStatusBadParm);
        if (ok && s == miopenStatusSuccess) handle_model(h)->stream = stream;
        return;
      }
      case 3: {
        auto [h, ok] = pick_as<miopenHandle_t>(Kind::handle);
        const bool null_out = in_.one_in(4);
        auto stream = reinterpret_cast<miopenAcceleratorQueue_t>(&junk_);
        const auto s = check("miopenGetStream", miopenGetStream(h, null_out ? nullptr : &stream), OK | BAD);
        expect("miopenGetStream", s, ok && !null_out ? miopenStatusSuccess : miopenStatusBadParm);
        if (s == miopenStatusSuccess && stream != handle_model(h)->stream) fail("miopenGetStream disagrees with miopenSetStream");
        return;
      }
      case 4: {
        auto [h, ok] = pick_as<miopenHandle_t>(Kind::handle);
        const miopenAllocatorFunction alloc = in_.flag() ? +[](void*, std::size_t) -> void* { return nullptr; } : nullptr;
        const miopenDeallocatorFunction dealloc = in_.flag() ? +[](void*, void*) {} : nullptr;
        void* context = in_.flag() ? &junk_ : nullptr;
        const auto s = check("miopenSetAllocator", miopenSetAllocator(h, alloc, dealloc, context), OK | BAD);
        expect("miopenSetAllocator", s, ok ? miopenStatusSuccess : miopenStatusBadParm);
        return;
      }
      case 5: {
        auto [h, ok] = pick_as<miopenHandle_t>(Kind::handle);
        const bool null_out = in_.one_in(4);
        float t = -7;
        const auto s = check("miopenGetKernelTime", miopenGetKernelTime(h, null_out ? nullptr : &t), OK | BAD);
        expect("miopenGetKernelTime", s, ok && !null_out ? miopenStatusSuccess : miopenStatusBadParm);
        if (s == miopenStatusSuccess && t != 0) fail("miopenGetKernelTime is not 0 although nothing ran");
        return;
      }
      case 6: {
        auto [h, ok] = pick_as<miopenHandle_t>(Kind::handle);
        const bool enable = in_.flag();
        const auto s = check("miopenEnableProfiling", miopenEnableProfiling(h, enable), OK | BAD | INTERNAL | ALLOC);
        if (!ok) expect("miopenEnableProfiling", s, miopenStatusBadParm);
        else if (!enable || gpu_present()) expect("miopenEnableProfiling", s, miopenStatusSuccess);
        return;
      }
    }
  }

  // Library-wide queries -----------------------------------------------------------------
  void info_calls() {
    const std::string before = hipfuseGetLastErrorMessage();
    const int status = in_.integer();
    const char* name = miopenGetErrorString(static_cast<miopenStatus_t>(status));
    note("miopenGetErrorString(" + std::to_string(status) + ")");
    if (name == nullptr || *name == '\0') return fail("miopenGetErrorString gave null or empty text");
    if (before != hipfuseGetLastErrorMessage()) return fail("miopenGetErrorString changed the last-error message");
    if (hipfuseGetVersionString() == nullptr) return fail("hipfuseGetVersionString is null");
    switch (in_.pick(4)) {
      case 0: {
        std::size_t v[3] = {7, 7, 7};
        const int mask = in_.pick(8);
        expect("miopenGetVersion",
               check("miopenGetVersion",
                     miopenGetVersion(mask & 1 ? nullptr : &v[0], mask & 2 ? nullptr : &v[1], mask & 4 ? nullptr : &v[2]), OK),
               miopenStatusSuccess);
        return;
      }
      case 1: {
        int count = -7;
        const char* why = nullptr;
        const bool null_count = in_.one_in(4);
        const char** why_out = in_.flag() ? &why : nullptr;
        const auto s = check("hipfuseGetDeviceAvailable", hipfuseGetDeviceAvailable(null_count ? nullptr : &count, why_out), OK | BAD);
        expect("hipfuseGetDeviceAvailable", s, null_count ? miopenStatusBadParm : miopenStatusSuccess);
        if (s == miopenStatusSuccess && (count > 0) != gpu_present()) fail("hipfuseGetDeviceAvailable disagrees with the platform layer");
        return;
      }
      case 2: {
        hipfuseKernelCacheStats stats{};
        const bool null_out = in_.one_in(4);
        const auto s = check("hipfuseGetKernelCacheStats", hipfuseGetKernelCacheStats(null_out ? nullptr : &stats), OK | BAD);
        expect("hipfuseGetKernelCacheStats", s, null_out ? miopenStatusBadParm : miopenStatusSuccess);
        return;
      }
      case 3:
        expect("hipfuseResetKernelCacheStats", check("hipfuseResetKernelCacheStats", hipfuseResetKernelCacheStats(), OK),
               miopenStatusSuccess);
        return;
    }
  }

  // Destroys everything still alive, through the API.
  void cleanup() {
    note("cleanup");
    while (!plans_.empty() && broken_.empty()) {
      auto p = plans_.back().plan;
      verify_plan(p);
      for (auto& op : plans_.back().ops) died(op.op);
      expect("miopenDestroyFusionPlan", check("miopenDestroyFusionPlan", miopenDestroyFusionPlan(p), OK | BAD), miopenStatusSuccess);
      plans_.pop_back();
      died(p);
    }
    for (auto* a : args_) expect("miopenDestroyOperatorArgs", check("miopenDestroyOperatorArgs", miopenDestroyOperatorArgs(a), OK | BAD), miopenStatusSuccess);
    args_.clear();
    for (auto& t : tensors_) {
      expect("miopenDestroyTensorDescriptor", check("miopenDestroyTensorDescriptor", miopenDestroyTensorDescriptor(t.first), OK | BAD),
             miopenStatusSuccess);
    }
    tensors_.clear();
    for (auto& c : convs_) {
      expect("miopenDestroyConvolutionDescriptor",
             check("miopenDestroyConvolutionDescriptor", miopenDestroyConvolutionDescriptor(c.first), OK | BAD), miopenStatusSuccess);
    }
    convs_.clear();
    for (auto& a : acts_) {
      expect("miopenDestroyActivationDescriptor",
             check("miopenDestroyActivationDescriptor", miopenDestroyActivationDescriptor(a.first), OK | BAD), miopenStatusSuccess);
    }
    acts_.clear();
    for (auto& h : handles_) {
      const auto s = check("miopenDestroy", miopenDestroy(h.handle), OK | BAD);
      expect("miopenDestroy", s, miopenStatusSuccess);
      if (s != miopenStatusSuccess) orphan_handles_.push_back(h.handle);
    }
    handles_.clear();
  }

  Input in_;
  ApiOptions options_;
  std::string broken_;
  std::deque<std::string> trace_;
  std::vector<HandleModel> handles_;
  std::vector<std::pair<miopenTensorDescriptor_t, TensorModel>> tensors_;
  std::vector<std::pair<miopenConvolutionDescriptor_t, ConvModel>> convs_;
  std::vector<std::pair<miopenActivationDescriptor_t, ActModel>> acts_;
  std::vector<PlanModel> plans_;
  std::vector<miopenOperatorArgs_t> args_;
  std::deque<std::pair<void*, long>> dead_;
  long destroyed_ = 0;
  std::vector<api::HandleObject*> orphan_handles_;
  Junk junk_;
};

}  // namespace

std::string check_api_sequence(const std::uint8_t* data, std::size_t size, const ApiOptions& options) {
  Session session(data, size, options);
  return session.run();
}

}  // namespace hipfuse::fuzz
