#pragma once
// Internals shared by the spec_*.cpp files; not part of the driver's interface.
//
// The pipeline (spec_load.cpp): TOML document -> RawPlans, one per plan, with the top level,
// a [[case]] entry and the --set overrides merged (spec_plan.cpp) -> structural checks: known
// keys, list shapes (spec_check.cpp) -> expansion of lists into concrete plans (spec_expand.cpp)
// -> typed Case (spec_build.cpp) -> semantic rules (spec_validate.cpp).
// RawPlans point into the parsed TOML, so errors can name the line of any value.

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "case.h"
#include "spec_toml.h"

namespace hipfuse::driver::detail {

// ---- Characters (spec_text_check.cpp) ------------------------------------------------------

// A character toml++ 3.3.0 must not be given (it can reach undefined behaviour on it).
struct TextProblem {
  int line = 0;
  int column = 0;       // in characters, from 1
  std::string message;
};
// The first non-ASCII character outside strings and comments, non-ASCII character where
// toml++ skips whitespace inside a basic string, or invalid UTF-8; nullopt when none.
std::optional<TextProblem> find_unsafe_character(std::string_view text);

// `text` (valid UTF-8) with each non-ASCII character but a leading byte-order mark replaced by '~'. toml++ reads '~' safely,
// and like a non-ASCII character it is valid only inside strings and comments; so when the
// stand-in parses, every non-ASCII character of `text` lies where toml++ reads it as string or
// comment text, whatever find_unsafe_character's scan (which cannot know every way toml++
// tokenises invalid text) concluded. Same lines and columns as `text`.
std::string ascii_stand_in(std::string_view text);
bool has_non_ascii(std::string_view text);

// ---- Schema (spec_schema.cpp) --------------------------------------------------------------

// How a key reads a TOML array.
enum class KeyForm {
  fixed,   // one value; never a list (kind)
  scalar,  // one value; a list sweeps over values
  vector,  // a list of ints; a list of lists sweeps; a scalar broadcasts to every spatial dim
  shape,   // a list of ints; a list of lists sweeps (input)
};
struct KeyInfo {
  std::string_view name;
  KeyForm form;
  bool required;
};

// Keys of each table, in the order case names and inline specs list them.
const std::vector<KeyInfo>& plan_keys();                          // dtype, layout, input
const std::vector<KeyInfo>* op_keys(std::string_view kind);       // nullptr: unknown kind
const std::vector<KeyInfo>* section_keys(std::string_view name);  // nullptr: not a section
inline constexpr std::array<std::string_view, 3> kSections{"init", "timing", "verify"};
const KeyInfo* find_key(const std::vector<KeyInfo>& keys, std::string_view name);
bool is_op_key(std::string_view key);  // a key of at least one op kind
std::vector<std::string_view> names_of(const std::vector<KeyInfo>& keys);
// Keys a plan-level table accepts besides plan_keys(); `root` adds "case".
std::vector<std::string_view> plan_table_keys(bool root);
// "; valid: a, b, c" and, for a near miss, " (did you mean 'x'?)".
std::string valid_list_hint(std::string_view word, const std::vector<std::string_view>& valid);

// ---- Raw plans (spec_plan.cpp) -------------------------------------------------------------

// The TOML node that gives one key its value, or its list of values.
struct Field {
  const toml::node* node = nullptr;  // owned by the parsed document or by an Override
  std::string key;                   // dotted key as written, for messages: "op.1.k", "case.2.op.1.k"
  bool from_set = false;             // given by --set: no line to point at
};
// One table of a plan: the plan level, one op or one section.
struct Group {
  Field self;  // the table itself: where an error about a missing key points
  std::map<std::string, Field> keys;
};
// One plan before expansion: the top level or one [[case]] entry, with --set applied.
struct RawPlan {
  std::string spec_name, case_name;
  int line = 1;
  Group top;  // dtype, layout, input (and unknown keys, left for check_plan)
  std::vector<Group> ops;
  std::map<std::string, Group> sections;  // only the sections the spec gives
  std::string name() const;               // spec_name[/case_name]
};

// One --set KEY=VALUE, parsed into the table {KEY = VALUE}.
struct Override {
  std::string key;
  toml::table doc;
};

std::vector<RawPlan> make_plans(const toml::table& doc, const std::string& origin,
                                const std::vector<Override>& overrides);

// Where a key lives in a RawPlan. Canonical paths: "dtype", "op.2.k", "timing.iters".
struct KeyRef {
  enum class In { top, op, section } in = In::top;
  size_t op = 0;
  std::string section;
  std::string key;
  std::string path() const;
  static KeyRef parse(std::string_view path);
};
std::string join_key(std::string_view prefix, std::string_view key);  // "op.1" + "k" -> "op.1.k"
const Group* group_of(const RawPlan& plan, const KeyRef& ref);  // nullptr: no such op/section
Field* field_of(RawPlan& plan, const KeyRef& ref);              // nullptr: key not given
// Visits every key the plan gives whose name the schema knows, in schema order.
void for_each_field(const RawPlan& plan,
                    const std::function<void(const KeyRef&, const KeyInfo&, const Field&)>& fn);
std::string op_kind_of(const Group& op);  // "" when missing or not a string

// ---- Errors and values (spec_plan.cpp) -----------------------------------------------------

int line_of(const Field& f, const toml::node* at = nullptr);  // 0 for --set values
[[noreturn]] void raise(const std::string& origin, const Field& f, const std::string& message,
                        const toml::node* at = nullptr);
std::string type_name(const toml::node& n);   // "string", "integer", "list", ...
std::string short_text(const toml::node& n);  // a value for case names: fp16, 64, 0.5, 64x64x56x56
std::string toml_float(double v);             // shortest text that reads back as the same TOML float

// ---- Stages --------------------------------------------------------------------------------

void check_plan(const RawPlan& plan, const std::string& origin);                         // spec_check.cpp
void expand_plan(const RawPlan& plan, const std::string& origin, std::vector<Case>& out);  // spec_expand.cpp
// A concrete plan (no lists left) -> a validated Case.                                      spec_build.cpp
Case build_case(const RawPlan& concrete, const std::string& origin, std::string name,
                std::vector<std::pair<std::string, std::string>> swept);

}  // namespace hipfuse::driver::detail
