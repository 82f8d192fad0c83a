// Lists -> cases: the cartesian product of every swept key of a plan, first key slowest, keys in
// schema order (dtype, layout, input, ops in plan order, init, timing, verify) whatever order
// the file writes them in, so case names do not depend on how a spec is laid out.

#include <fmt/format.h>

#include "spec.h"
#include "spec_detail.h"

namespace hipfuse::driver::detail {

namespace {

struct Axis {
  KeyRef ref;
  const toml::array* values;
};

// check_plan has made lists uniform: a vector key sweeps exactly when it holds lists.
bool is_sweep(const KeyInfo& info, const toml::node& n) {
  const toml::array* list = n.as_array();
  if (!list) return false;
  return info.form == KeyForm::scalar || list->front().is_array();
}

std::vector<Axis> axes_of(const RawPlan& plan) {
  std::vector<Axis> axes;
  for_each_field(plan, [&](const KeyRef& ref, const KeyInfo& info, const Field& f) {
    if (is_sweep(info, *f.node)) axes.push_back({ref, f.node->as_array()});
  });
  return axes;
}

size_t count_cases(const std::vector<Axis>& axes, size_t so_far, const RawPlan& plan, const std::string& origin) {
  if (plan.ops.size() > kMaxOpsPerPlan)
    raise(origin, plan.ops[kMaxOpsPerPlan].self,
          fmt::format("a plan holds at most {} ops, this one {}", kMaxOpsPerPlan, plan.ops.size()));
  size_t total = 1;
  for (const Axis& a : axes) {
    total *= a.values->size();
    if (so_far + total > kMaxCasesPerSpec)
      raise(origin, Field{plan.top.self.node, plan.top.self.key, false},
            fmt::format("the spec expands to more than {} cases; split it or sweep fewer values", kMaxCasesPerSpec));
  }
  return total;
}

// Odometer step: the last axis turns fastest.
void advance(std::vector<size_t>& pick, const std::vector<Axis>& axes) {
  for (size_t a = axes.size(); a-- > 0;) {
    if (++pick[a] < axes[a].values->size()) return;
    pick[a] = 0;
  }
}

}  // namespace

void expand_plan(const RawPlan& plan, const std::string& origin, std::vector<Case>& out) {
  const std::vector<Axis> axes = axes_of(plan);
  const size_t total = count_cases(axes, out.size(), plan, origin);
  std::vector<size_t> pick(axes.size(), 0);
  for (size_t n = 0; n < total; ++n, advance(pick, axes)) {
    RawPlan concrete = plan;
    std::string name = plan.name();
    std::vector<std::pair<std::string, std::string>> swept;
    for (size_t a = 0; a < axes.size(); ++a) {
      const toml::node& value = (*axes[a].values)[pick[a]];
      field_of(concrete, axes[a].ref)->node = &value;
      swept.emplace_back(axes[a].ref.path(), short_text(value));
      name += fmt::format("/{}={}", swept.back().first, swept.back().second);
    }
    out.push_back(build_case(concrete, origin, std::move(name), std::move(swept)));
  }
}

}  // namespace hipfuse::driver::detail
