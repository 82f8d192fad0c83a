// TOML document -> RawPlans: the top level is one plan, or the defaults of its [[case]] entries;
// then every --set override is merged into every plan. Also the small value helpers that the
// later stages share (lines, type names, key paths).

#include <filesystem>

#include <fmt/format.h>

#include "spec_detail.h"

namespace hipfuse::driver::detail {

namespace {

// Where the keys being merged come from, for messages.
struct Source {
  std::string prefix;     // "" for the top level and --set, "case.3." for a [[case]] entry
  bool from_set = false;  // a --set: an op patch that does not fit a plan skips that plan
  bool is_case = false;   // `name` names the case, not the spec
};

Field field_at(const toml::node& n, const Source& src, const std::string& key) {
  return Field{&n, src.prefix + key, src.from_set};
}

void set_name(RawPlan& plan, const toml::node& n, const Source& src, const std::string& origin) {
  const Field f = field_at(n, src, "name");
  const auto* s = n.as_string();
  if (!s) raise(origin, f, fmt::format("expected a string, got {}", type_name(n)));
  if (s->get().empty()) raise(origin, f, "a name cannot be empty");
  (src.is_case ? plan.case_name : plan.spec_name) = s->get();
}

Group table_group(const toml::node& n, const Source& src, const std::string& key, const std::string& origin) {
  Group g{field_at(n, src, key), {}};
  const toml::table* t = n.as_table();
  if (!t) raise(origin, g.self, fmt::format("expected a table, got {}", type_name(n)));
  for (auto&& [k, v] : *t) g.keys[std::string(k.str())] = field_at(v, src, join_key(key, k.str()));
  return g;
}

void replace_ops(RawPlan& plan, const toml::array& ops, const Source& src, const std::string& origin) {
  plan.ops.clear();
  for (size_t i = 0; i < ops.size(); ++i) plan.ops.push_back(table_group(ops[i], src, fmt::format("op.{}", i), origin));
}

// Whether a --set of `op.<index>.<key>` fits this plan: the op exists and its kind has the key.
bool set_fits(const RawPlan& plan, size_t index, std::string_view key) {
  if (index >= plan.ops.size()) return false;
  const std::vector<KeyInfo>* keys = op_keys(op_kind_of(plan.ops[index]));
  return key == "kind" || !keys || find_key(*keys, key);
}

// `op.N.key = value` in a [[case]] entry or a --set changes one key of an existing op.
bool patch_ops(RawPlan& plan, const toml::table& patch, const Source& src, const std::string& origin) {
  std::vector<std::pair<size_t, Group>> edits;
  for (auto&& [index_key, value] : patch) {
    const std::string where = fmt::format("op.{}", index_key.str());
    const std::string_view digits = index_key.str();
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
      raise(origin, field_at(value, src, where), "expected an op index: op.0, op.1, ...");
    const size_t index = std::stoul(std::string(digits));
    Group edit = table_group(value, src, where, origin);
    for (const auto& [key, f] : edit.keys) {
      if (src.from_set && !is_op_key(key)) raise(origin, f, fmt::format("no op kind has a key '{}'", key));
      if (src.from_set && !set_fits(plan, index, key)) return false;
    }
    if (index >= plan.ops.size())
      raise(origin, edit.self, fmt::format("there is no op {}: the plan has {} ops", index, plan.ops.size()));
    edits.emplace_back(index, std::move(edit));
  }
  for (auto& [index, edit] : edits)
    for (auto& [key, f] : edit.keys) plan.ops[index].keys[key] = f;
  return true;
}

bool merge_ops(RawPlan& plan, const toml::node& n, const Source& src, const std::string& origin) {
  if (const auto* list = n.as_array()) {
    replace_ops(plan, *list, src, origin);
    return true;
  }
  const auto* patch = n.as_table();  // op.N.key: only cases and --set have an op list to patch
  if (patch && (src.is_case || src.from_set)) return patch_ops(plan, *patch, src, origin);
  raise(origin, field_at(n, src, "op"), fmt::format("expected [[op]] tables, got {}", type_name(n)));
}

void merge_section(RawPlan& plan, const std::string& name, const toml::node& n, const Source& src,
                   const std::string& origin) {
  Group given = table_group(n, src, name, origin);
  Group& section = plan.sections[name];
  if (!section.self.node) section.self = given.self;
  for (auto& [key, f] : given.keys) section.keys[key] = f;
}

// Merges one plan-level table into `plan`; false when a --set op patch does not fit it.
bool merge_table(RawPlan& plan, const toml::table& t, const Source& src, const std::string& origin) {
  bool applied = true;
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "case" && src.prefix.empty() && !src.from_set) continue;  // the root's list of plans
    if (key == "name") set_name(plan, v, src, origin);
    else if (key == "op") applied = merge_ops(plan, v, src, origin) && applied;
    else if (section_keys(key)) merge_section(plan, key, v, src, origin);
    else plan.top.keys[key] = field_at(v, src, key);  // unknown keys stay for check_plan to report
  }
  return applied;
}

std::vector<RawPlan> case_plans(const RawPlan& defaults, const toml::node& cases, const std::string& origin) {
  const auto* list = cases.as_array();
  const Field where{&cases, "case", false};
  if (!list) raise(origin, where, fmt::format("expected [[case]] tables, got {}", type_name(cases)));
  if (list->empty()) raise(origin, where, "the list of cases is empty");
  std::vector<RawPlan> plans;
  for (size_t i = 0; i < list->size(); ++i) {
    const toml::node& entry = (*list)[i];
    const Source src{fmt::format("case.{}.", i), false, true};
    const Field self{&entry, fmt::format("case.{}", i), false};
    const toml::table* t = entry.as_table();
    if (!t) raise(origin, self, fmt::format("expected a table, got {}", type_name(entry)));
    RawPlan plan = defaults;
    plan.top.self = self;
    plan.line = line_of(self);
    merge_table(plan, *t, src, origin);
    if (plan.case_name.empty()) raise(origin, self, "every [[case]] needs a name");
    plans.push_back(std::move(plan));
  }
  return plans;
}

void apply_overrides(std::vector<RawPlan>& plans, const std::vector<Override>& overrides, const std::string& origin) {
  const Source src{"", true, false};
  for (const Override& o : overrides) {
    size_t applied = 0;
    for (RawPlan& plan : plans) applied += merge_table(plan, o.doc, src, origin) ? 1 : 0;
    if (applied == 0) raise(origin, Field{nullptr, o.key, true}, "no plan has an op at this index with this key");
  }
}

}  // namespace

std::string RawPlan::name() const { return case_name.empty() ? spec_name : spec_name + "/" + case_name; }

std::vector<RawPlan> make_plans(const toml::table& doc, const std::string& origin,
                                const std::vector<Override>& overrides) {
  RawPlan defaults;
  defaults.spec_name = std::filesystem::path(origin).stem().string();
  defaults.top.self = Field{&doc, "", false};
  defaults.line = line_of(defaults.top.self);
  merge_table(defaults, doc, Source{}, origin);
  const toml::node* cases = doc.get("case");
  std::vector<RawPlan> plans = cases ? case_plans(defaults, *cases, origin) : std::vector<RawPlan>{defaults};
  apply_overrides(plans, overrides, origin);
  return plans;
}

// ---- Key paths ------------------------------------------------------------------------------

std::string join_key(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  return key.empty() ? std::string(prefix) : fmt::format("{}.{}", prefix, key);
}

std::string KeyRef::path() const {
  switch (in) {
    case In::op: return key.empty() ? fmt::format("op.{}", op) : fmt::format("op.{}.{}", op, key);
    case In::section: return join_key(section, key);
    case In::top: break;
  }
  return key;
}

KeyRef KeyRef::parse(std::string_view path) {
  KeyRef ref;
  const size_t dot = path.find('.');
  const std::string_view head = path.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  if (head == "op" && !rest.empty()) {
    const size_t dot2 = rest.find('.');
    ref.in = In::op;
    ref.op = std::stoul(std::string(rest.substr(0, dot2)));
    ref.key = dot2 == std::string_view::npos ? "" : std::string(rest.substr(dot2 + 1));
  } else if (section_keys(head)) {
    ref.in = In::section;
    ref.section = std::string(head);
    ref.key = std::string(rest);
  } else {
    ref.key = std::string(path);
  }
  return ref;
}

namespace {

template <class Plan>  // RawPlan or const RawPlan
auto group_in(Plan& plan, const KeyRef& ref) -> decltype(&plan.top) {
  switch (ref.in) {
    case KeyRef::In::op: return ref.op < plan.ops.size() ? &plan.ops[ref.op] : nullptr;
    case KeyRef::In::section: {
      const auto it = plan.sections.find(ref.section);
      return it == plan.sections.end() ? nullptr : &it->second;
    }
    case KeyRef::In::top: break;
  }
  return &plan.top;
}

}  // namespace

const Group* group_of(const RawPlan& plan, const KeyRef& ref) { return group_in(plan, ref); }

Field* field_of(RawPlan& plan, const KeyRef& ref) {
  Group* group = group_in(plan, ref);
  if (!group) return nullptr;
  const auto it = group->keys.find(ref.key);
  return it == group->keys.end() ? nullptr : &it->second;
}

void for_each_field(const RawPlan& plan,
                    const std::function<void(const KeyRef&, const KeyInfo&, const Field&)>& fn) {
  const auto visit = [&](const Group& g, const std::vector<KeyInfo>& keys, KeyRef ref) {
    for (const KeyInfo& info : keys) {
      const auto it = g.keys.find(std::string(info.name));
      if (it == g.keys.end()) continue;
      ref.key = std::string(info.name);
      fn(ref, info, it->second);
    }
  };
  visit(plan.top, plan_keys(), KeyRef{});
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (const auto* keys = op_keys(op_kind_of(plan.ops[i])))
      visit(plan.ops[i], *keys, KeyRef{KeyRef::In::op, i, "", ""});
  for (std::string_view name : kSections) {
    const auto it = plan.sections.find(std::string(name));
    if (it != plan.sections.end())
      visit(it->second, *section_keys(name), KeyRef{KeyRef::In::section, 0, std::string(name), ""});
  }
}

std::string op_kind_of(const Group& op) {
  const auto it = op.keys.find("kind");
  if (it == op.keys.end()) return "";
  const auto* s = it->second.node->as_string();
  return s ? s->get() : "";
}

// ---- Errors and values ----------------------------------------------------------------------

int line_of(const Field& f, const toml::node* at) {
  const toml::node* n = at ? at : f.node;
  if (f.from_set || !n) return 0;
  return static_cast<int>(n->source().begin.line);
}

void raise(const std::string& origin, const Field& f, const std::string& message, const toml::node* at) {
  throw SpecError(origin, line_of(f, at), f.key, f.from_set ? message + " (value from --set)" : message);
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return fmt::format("string \"{}\"", n.as_string()->get());
    case toml::node_type::integer: return fmt::format("integer {}", n.as_integer()->get());
    case toml::node_type::floating_point: return fmt::format("float {}", n.as_floating_point()->get());
    case toml::node_type::boolean: return fmt::format("boolean {}", n.as_boolean()->get());
    case toml::node_type::array: return "a list";
    case toml::node_type::table: return "a table";
    default: return "a date/time";
  }
}

std::string short_text(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return n.as_string()->get();
    case toml::node_type::integer: return std::to_string(n.as_integer()->get());
    case toml::node_type::floating_point: return toml_float(n.as_floating_point()->get());
    case toml::node_type::boolean: return n.as_boolean()->get() ? "true" : "false";
    case toml::node_type::array: {
      std::vector<std::string> parts;
      for (const toml::node& e : *n.as_array()) parts.push_back(short_text(e));
      return fmt::format("{}", fmt::join(parts, "x"));
    }
    default: return "?";
  }
}

}  // namespace hipfuse::driver::detail
