// A concrete plan (every list already expanded) -> a typed, validated Case. Reads check value
// types and names; the semantic rules live in spec_validate.cpp.

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "spec_detail.h"
#include "spec_validate.h"

namespace hipfuse::driver::detail {

namespace {

// Typed access to one concrete plan; every error points at the node it is about.
class Reader final : public Site {
 public:
  Reader(const RawPlan& plan, const std::string& origin, const std::string& case_name)
      : plan_(plan), origin_(origin), case_name_(case_name) {}

  // Rule violations found after reading: point at the key's value, or at its table if the key
  // was left at its default.
  [[noreturn]] void fail(const std::string& path, const std::string& message) const override {
    const KeyRef ref = KeyRef::parse(path);
    const Group* g = group_of(plan_, ref);
    const auto it = g ? g->keys.find(ref.key) : plan_.top.keys.end();
    Field where;
    if (g && it != g->keys.end()) where = it->second;
    else if (g) where = Field{g->self.node, join_key(g->self.key, ref.key), g->self.from_set};
    else where = Field{plan_.top.self.node, join_key(plan_.top.self.key, path), false};  // a section not given
    raise(origin_, where, fmt::format("{} [case {}]", message, case_name_));
  }

  // Each read leaves `out` as it is when the key is absent.
  void read(const Group& g, std::string_view key, std::string& out) const {
    if (const Field* f = find(g, key)) out = text(*f);
  }
  void read(const Group& g, std::string_view key, bool& out) const {
    if (const Field* f = find(g, key)) out = boolean(*f);
  }
  void read(const Group& g, std::string_view key, int& out) const {
    if (const Field* f = find(g, key)) out = to_int(*f, *f->node, integer(*f, *f->node));
  }
  void read(const Group& g, std::string_view key, int64_t& out) const {
    if (const Field* f = find(g, key)) out = integer(*f, *f->node);
  }
  void read(const Group& g, std::string_view key, uint64_t& out) const {
    const Field* f = find(g, key);
    if (!f) return;
    const int64_t v = integer(*f, *f->node);
    if (v < 0) raise(origin_, *f, fmt::format("expected an integer >= 0, got {}", v));
    out = static_cast<uint64_t>(v);
  }
  void read(const Group& g, std::string_view key, double& out) const {
    if (const Field* f = find(g, key)) out = number(*f);
  }
  void read(const Group& g, std::string_view key, std::optional<double>& out) const {
    if (const Field* f = find(g, key)) out = number(*f);
  }
  // A name from `names`; `out` becomes its index (the MIOpen value for modes).
  template <class Names, class Index>
  void read_name(const Group& g, std::string_view key, const Names& names, Index& out) const {
    const Field* f = find(g, key);
    if (!f) return;
    const std::string name = text(*f);
    for (size_t i = 0; i < std::size(names); ++i)
      if (names[i] == name) {
        out = static_cast<Index>(i);
        return;
      }
    raise(origin_, *f,
          fmt::format("unknown {} '{}'{}", key, name,
                      valid_list_hint(name, std::vector<std::string_view>(std::begin(names), std::end(names)))));
  }
  // A list of integers; a scalar broadcasts to `broadcast` copies (0: a scalar is an error).
  std::vector<int64_t> read_list(const Group& g, std::string_view key, size_t broadcast) const {
    const Field* f = find(g, key);
    if (!f) return {};
    const toml::array* list = f->node->as_array();
    if (!list && broadcast == 0)
      raise(origin_, *f, fmt::format("expected a list of integers, got {}", type_name(*f->node)));
    if (!list) return std::vector<int64_t>(broadcast, integer(*f, *f->node));
    std::vector<int64_t> values;
    for (const toml::node& e : *list) values.push_back(integer(*f, e));
    return values;
  }
  std::vector<int> read_dims(const Group& g, std::string_view key, size_t spatial, int fallback) const {
    const Field* f = find(g, key);
    if (!f) return std::vector<int>(spatial, fallback);
    std::vector<int> dims;
    for (int64_t v : read_list(g, key, spatial)) dims.push_back(to_int(*f, *f->node, v));
    return dims;
  }

 private:
  static const Field* find(const Group& g, std::string_view key) {
    const auto it = g.keys.find(std::string(key));
    return it == g.keys.end() ? nullptr : &it->second;
  }
  [[noreturn]] void wrong_type(const Field& f, const toml::node& n, std::string_view expected) const {
    raise(origin_, f, fmt::format("expected {}, got {}", expected, type_name(n)), &n);
  }
  std::string text(const Field& f) const {
    if (const auto* s = f.node->as_string()) return s->get();
    wrong_type(f, *f.node, "a string");
  }
  bool boolean(const Field& f) const {
    if (const auto* b = f.node->as_boolean()) return b->get();
    wrong_type(f, *f.node, "true or false");
  }
  int64_t integer(const Field& f, const toml::node& n) const {
    if (const auto* i = n.as_integer()) return i->get();
    wrong_type(f, n, "an integer");
  }
  int to_int(const Field& f, const toml::node& n, int64_t v) const {
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      raise(origin_, f, fmt::format("{} does not fit in an int", v), &n);
    return static_cast<int>(v);
  }
  double number(const Field& f) const {  // integers read as numbers too: alpha = 1
    double v = 0;
    if (const auto* i = f.node->as_integer()) v = static_cast<double>(i->get());
    else if (const auto* d = f.node->as_floating_point()) v = d->get();
    else wrong_type(f, *f.node, "a number");
    if (!std::isfinite(v)) raise(origin_, f, fmt::format("expected a finite number, got {}", v));
    return v;
  }

  const RawPlan& plan_;
  const std::string& origin_;
  const std::string& case_name_;
};

ConvSpec read_conv(const Reader& r, const Group& g, size_t spatial) {
  ConvSpec s;
  r.read(g, "k", s.k);
  s.filter = r.read_dims(g, "filter", spatial, 1);
  s.stride = r.read_dims(g, "stride", spatial, 1);
  s.pad = r.read_dims(g, "pad", spatial, 0);
  s.dilation = r.read_dims(g, "dilation", spatial, 1);
  r.read(g, "groups", s.groups);
  return s;
}

ActivationSpec read_activation(const Reader& r, const Group& g, bool backward) {
  ActivationSpec s;
  s.backward = backward;
  r.read_name(g, "mode", kActivationModeNames, s.mode);
  r.read(g, "alpha", s.alpha);
  r.read(g, "beta", s.beta);
  r.read(g, "gamma", s.gamma);
  return s;
}

template <class Bn>
Bn read_bn(const Reader& r, const Group& g) {
  Bn s;
  r.read_name(g, "mode", kBnModeNames, s.mode);
  if constexpr (!std::is_same_v<Bn, BnBackwardSpec>) r.read(g, "epsilon", s.epsilon);
  if constexpr (std::is_same_v<Bn, BnForwardTrainingSpec>) {
    r.read(g, "exp_avg_factor", s.exp_avg_factor);
    r.read(g, "running_stats", s.running_stats);
  }
  return s;
}

OpSpec read_op(const Reader& r, const Group& g, size_t spatial) {
  const std::string kind = op_kind_of(g);  // check_plan made sure it is a known kind
  if (kind == "conv") return read_conv(r, g, spatial);
  if (kind == "bias") return BiasSpec{};
  if (kind == "residual_add") {
    ResidualAddSpec s;
    r.read(g, "alpha", s.alpha);
    return s;
  }
  if (kind == "bn_inference") return read_bn<BnInferenceSpec>(r, g);
  if (kind == "bn_forward_training") return read_bn<BnForwardTrainingSpec>(r, g);
  if (kind == "bn_backward") return read_bn<BnBackwardSpec>(r, g);
  return read_activation(r, g, kind == "activation_backward");
}

const Group& section(const RawPlan& plan, const char* name) {
  static const Group none;
  const auto it = plan.sections.find(name);
  return it == plan.sections.end() ? none : it->second;
}

void read_sections(const Reader& r, const RawPlan& plan, Case& c) {
  constexpr std::array<std::string_view, 3> kDistributions{"uniform", "normal", "integer"};
  constexpr std::array<std::string_view, 3> kVerifyModes{"cpu", "sample", "off"};
  const Group& init = section(plan, "init");
  size_t distribution = 0;
  r.read_name(init, "distribution", kDistributions, distribution);
  c.init.distribution = std::string(kDistributions[distribution]);
  r.read(init, "min", c.init.min);
  r.read(init, "max", c.init.max);
  r.read(init, "mean", c.init.mean);
  r.read(init, "stddev", c.init.stddev);
  r.read(init, "seed", c.init.seed);
  r.read(section(plan, "timing"), "warmup", c.timing.warmup);
  r.read(section(plan, "timing"), "iters", c.timing.iters);
  const Group& verify = section(plan, "verify");
  size_t mode = 0;
  r.read_name(verify, "mode", kVerifyModes, mode);
  c.verify.mode = std::string(kVerifyModes[mode]);
  r.read(verify, "samples", c.verify.samples);
  r.read(verify, "tolerance", c.verify.tolerance);
}

}  // namespace

Case build_case(const RawPlan& plan, const std::string& origin, std::string name,
                std::vector<std::pair<std::string, std::string>> swept) {
  Case c;
  c.name = std::move(name);
  const Reader r(plan, origin, c.name);
  c.file = origin;
  c.line = plan.line;
  c.swept = std::move(swept);
  r.read_name(plan.top, "dtype", kDTypeNames, c.dtype);
  r.read_name(plan.top, "layout", kLayoutNames, c.layout);
  c.input = r.read_list(plan.top, "input", 0);
  const size_t spatial = c.input.size() > 2 ? c.input.size() - 2 : 0;
  std::vector<size_t> op_index;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    bool enabled = true;
    r.read(plan.ops[i], "enabled", enabled);
    if (!enabled) continue;
    c.ops.push_back(read_op(r, plan.ops[i], spatial));
    op_index.push_back(i);
  }
  read_sections(r, plan, c);
  validate_case(c, op_index, r);
  return c;
}

}  // namespace hipfuse::driver::detail
