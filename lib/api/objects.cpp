#include "api/objects.h"

#include "common/error.h"

#include <deque>
#include <mutex>

namespace hipfuse::api {

namespace {

// Enough for a test or an app's teardown to hit a destroyed object reliably; bounded so
// a long-running program does not grow.
constexpr std::size_t kQuarantineCapacity = 1024;

struct Quarantine {
  std::mutex mutex;
  std::deque<std::pair<void*, void (*)(void*)>> shells;
};

// Never destroyed: objects may be destroyed from other static destructors at exit.
Quarantine& the_quarantine() {
  static Quarantine* q = new Quarantine;
  return *q;
}

}  // namespace

const char* kind_name(Tag tag) {
  switch (tag) {
    case Tag::handle: return "handle (miopenHandle_t)";
    case Tag::tensor: return "tensor descriptor (miopenTensorDescriptor_t)";
    case Tag::convolution: return "convolution descriptor (miopenConvolutionDescriptor_t)";
    case Tag::activation: return "activation descriptor (miopenActivationDescriptor_t)";
    case Tag::plan: return "fusion plan (miopenFusionPlanDescriptor_t)";
    case Tag::op: return "fusion op (miopenFusionOpDescriptor_t)";
    case Tag::args: return "operator args (miopenOperatorArgs_t)";
    case Tag::destroyed: return "destroyed object";
  }
  return nullptr;
}

void fail_bad_object(const void* pointer, Tag expected, const char* role) {
  const std::string want = kind_name(expected);
  if (pointer == nullptr) fail(Status::bad_parm, std::string(role) + " is null (expected a " + want + ")");
  const Tag found = tag_at(pointer);
  if (found == Tag::destroyed) {
    fail(Status::bad_parm, std::string(role) + " was already destroyed (expected a live " + want + ")");
  }
  if (const char* name = kind_name(found)) {
    fail(Status::bad_parm, std::string(role) + " is a " + name + ", not a " + want);
  }
  fail(Status::bad_parm, std::string(role) + " is not a " + want + " created by hipfuse");
}

void quarantine(void* object, void (*deleter)(void*)) {
  auto& q = the_quarantine();
  std::pair<void*, void (*)(void*)> evicted{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(q.mutex);
    q.shells.emplace_back(object, deleter);
    if (q.shells.size() > kQuarantineCapacity) {
      evicted = q.shells.front();
      q.shells.pop_front();
    }
  }
  if (evicted.first != nullptr) evicted.second(evicted.first);
}

void HandleObject::release() {
  if (start != nullptr) (void)hipEventDestroy(start);
  if (stop != nullptr) (void)hipEventDestroy(stop);
  start = stop = nullptr;
  one_shot_plans.clear();
}

const FusionOp& OpObject::op() const { return *plan->plan->ops()[static_cast<std::size_t>(index)]; }

void PlanObject::release() {
  for (OpObject* op : ops) destroy_object(*op);
  ops.clear();
  plan.reset();
}

}  // namespace hipfuse::api
