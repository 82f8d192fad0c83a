// Structural checks of a plan, once before expansion: every key is known where it stands,
// required keys are there, op kinds exist, and lists are nested the way each key reads them.

#include <fmt/format.h>

#include "spec_detail.h"

namespace hipfuse::driver::detail {

namespace {

Field missing(const Group& g, std::string_view key) {
  return Field{g.self.node, join_key(g.self.key, key), g.self.from_set};
}

// `what` names the table in messages: "the plan", "a conv op", "[timing]".
void check_keys(const Group& g, const std::vector<KeyInfo>& keys, const std::vector<std::string_view>& valid,
                const std::string& what, const std::string& origin) {
  for (const auto& [key, f] : g.keys)
    if (!find_key(keys, key))
      raise(origin, f, fmt::format("unknown key '{}' in {}{}", key, what, valid_list_hint(key, valid)));
  for (const KeyInfo& info : keys)
    if (info.required && !g.keys.count(std::string(info.name)))
      raise(origin, missing(g, info.name), fmt::format("{} needs the key '{}'", what, info.name));
}

void check_op(const Group& op, const std::string& origin) {
  const auto kind = op.keys.find("kind");
  if (kind == op.keys.end()) raise(origin, missing(op, "kind"), "every op needs a kind");
  const toml::node& node = *kind->second.node;
  if (!node.is_string())
    raise(origin, kind->second, fmt::format("expected an op kind name, got {}", type_name(node)));
  const std::string name = op_kind_of(op);
  const std::vector<KeyInfo>* keys = op_keys(name);
  if (!keys)
    raise(origin, kind->second,
          fmt::format("unknown op kind '{}'{}", name,
                      valid_list_hint(name, {kOpKindNames.begin(), kOpKindNames.end()})));
  check_keys(op, *keys, names_of(*keys), fmt::format("a {} op", name), origin);
}

[[noreturn]] void bad_nesting(const std::string& origin, const Field& f, const KeyInfo& info, const toml::node& at) {
  const std::string how =
      info.form == KeyForm::scalar
          ? fmt::format("'{}' takes one value; a list sweeps over values, a list of lists means nothing", info.name)
          : fmt::format("'{}' takes a list of integers; write [a, b] for one value or [[a, b], [c, d]] to sweep",
                        info.name);
  raise(origin, f, "bad list nesting: " + how, &at);
}

// A flat list of single values (no lists, no tables in it).
void check_flat(const std::string& origin, const Field& f, const KeyInfo& info, const toml::array& list) {
  if (list.empty()) raise(origin, f, "empty list", &list);
  for (const toml::node& e : list)
    if (e.is_array() || e.is_table()) bad_nesting(origin, f, info, e);
}

void check_form(const KeyInfo& info, const Field& f, const std::string& origin) {
  const toml::array* list = f.node->as_array();
  if (!list) return;
  if (info.form == KeyForm::fixed) raise(origin, f, fmt::format("'{}' takes one value, not a list", info.name));
  if (info.form == KeyForm::scalar || list->empty() || !list->front().is_array()) {
    check_flat(origin, f, info, *list);
    return;
  }
  for (const toml::node& e : *list) {  // a list of lists: a sweep over list values
    if (!e.is_array()) bad_nesting(origin, f, info, e);
    check_flat(origin, f, info, *e.as_array());
  }
}

}  // namespace

void check_plan(const RawPlan& plan, const std::string& origin) {
  check_keys(plan.top, plan_keys(), plan_table_keys(plan.case_name.empty()), "the plan", origin);
  if (plan.ops.empty()) raise(origin, missing(plan.top, "op"), "the plan has no ops: add [[op]] tables");
  for (const Group& op : plan.ops) check_op(op, origin);
  for (const auto& [name, section] : plan.sections)
    check_keys(section, *section_keys(name), names_of(*section_keys(name)), fmt::format("[{}]", name), origin);
  for_each_field(plan, [&](const KeyRef&, const KeyInfo& info, const Field& f) { check_form(info, f, origin); });
}

}  // namespace hipfuse::driver::detail
