// The objects behind MIOpen's opaque handles. Each derives from its empty public struct
// and starts with a kind tag, so a pointer of the wrong kind, or one already destroyed,
// is reported (BadParm) instead of misused. Destroyed objects keep a poisoned tag in a
// bounded quarantine for a while, which makes a use after destroy detectable without
// reading freed memory.
#pragma once

#include "plan/convolution.h"
#include "plan/fusion_plan.h"
#include "plan/op_args.h"
#include "plan/ops.h"
#include "plan/tensor.h"
#include "solvers/solver.h"

#include <miopen/miopen.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hipfuse::api {

enum class Tag : std::uint32_t {
  handle = 0x48464801,
  tensor = 0x48464802,
  convolution = 0x48464803,
  activation = 0x48464804,
  plan = 0x48464805,
  op = 0x48464806,
  args = 0x48464807,
  destroyed = 0xDEADF00D,
};

const char* kind_name(Tag tag);  // "handle", "tensor descriptor", ...; nullptr for unknown tags

// The tag is the first member of an object whose only base is empty, so it sits at the
// address the public pointer holds (checked by a unit test).
template <typename Public, Tag kTag>
struct Object : Public {
  static constexpr Tag kind = kTag;
  Tag tag = kTag;
};

// Reads the tag at a public pointer.
inline Tag tag_at(const void* pointer) {
  Tag tag;
  std::memcpy(&tag, pointer, sizeof tag);
  return tag;
}

// `role` names the argument in messages, e.g. "convDesc".
[[noreturn]] void fail_bad_object(const void* pointer, Tag expected, const char* role);

template <typename T, typename Public>
T& checked_cast(Public* pointer, const char* role) {
  if (pointer == nullptr || tag_at(pointer) != T::kind) fail_bad_object(pointer, T::kind, role);
  return *static_cast<T*>(pointer);
}

template <typename T, typename Public>
const T& checked_cast(const Public* pointer, const char* role) {
  return checked_cast<T>(const_cast<Public*>(pointer), role);
}

// Poisons the tag, lets the object free what it holds (release()), and keeps the shell
// in the quarantine; the oldest shells are freed once it is full.
void quarantine(void* object, void (*deleter)(void*));

template <typename T>
void destroy_object(T& object) {
  object.release();
  object.tag = Tag::destroyed;
  quarantine(&object, [](void* p) { delete static_cast<T*>(p); });
}

// ---------------------------------------------------------------------------------------

struct HandleObject : Object<miopenHandle, Tag::handle> {
  int device = 0;
  hipStream_t stream = nullptr;
  Target target;
  bool profiling = false;
  float kernel_ms = 0;
  hipEvent_t start = nullptr, stop = nullptr;  // created when profiling is first enabled
  miopenAllocatorFunction allocator = nullptr;
  miopenDeallocatorFunction deallocator = nullptr;
  void* allocator_context = nullptr;
  // miopenConvolutionBiasActivationForward's compiled plans, by plan key (MIOpen keeps
  // its invokers on the handle the same way).
  std::map<std::string, std::unique_ptr<FusionPlan>> one_shot_plans;
  void release();
};

struct TensorObject : Object<miopenTensorDescriptor, Tag::tensor> {
  TensorDesc desc;
  void release() { desc = {}; }
};

struct ConvolutionObject : Object<miopenConvolutionDescriptor, Tag::convolution> {
  ConvDesc desc;
  int fp16_alt_impl = -1;     // stored for MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL; no effect
  int fp8_rounding_mode = 0;  // stored for MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE; no effect
  void release() { desc = {}; }
};

struct ActivationObject : Object<miopenActivationDescriptor, Tag::activation> {
  ActivationMode mode = ActivationMode::passthru;
  double alpha = 0, beta = 0, gamma = 0;
  void release() {}
};

struct PlanObject;

// An op handle: a position in its plan. Owned by the plan; destroyed with it.
struct OpObject : Object<miopenFusionOpDescriptor, Tag::op> {
  PlanObject* plan = nullptr;
  int index = 0;
  const FusionOp& op() const;
  void release() { plan = nullptr; }
};

struct PlanObject : Object<miopenFusionPlanDescriptor, Tag::plan> {
  std::unique_ptr<FusionPlan> plan;
  std::vector<OpObject*> ops;  // owned; destroyed (quarantined) with the plan
  int compiled_device = -1;    // the device its kernels are loaded on
  miopenConvFwdAlgorithm_t algo = miopenConvolutionFwdAlgoDirect;  // stored, no effect
  // hipfuseGetFusionPlanInfo's key string, recomputed (under the mutex) only when ops were
  // added since: concurrent calls, and executions, of an unchanged plan only read it.
  std::mutex info_mutex;
  std::string info_key;
  int info_key_ops = -1;  // the op count info_key was computed for
  void release();
};

struct ArgsObject : Object<miopenOperatorArgs, Tag::args> {
  OperatorArgs args;
  void release() { args = {}; }
};

}  // namespace hipfuse::api
