// Cases -> text: the inline spec that reproduces one case, its shell command, its one-line summary.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "spec.h"
#include "spec_detail.h"

namespace hipfuse::driver {

namespace detail {

std::string toml_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);  // shortest text that reads back to the same double
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";  // keep it a TOML float
  return s;
}

}  // namespace detail

namespace {

using detail::toml_float;

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') out += {'\\', ch};
    else if (u < 0x20 || u == 0x7f) out += fmt::format("\\u{:04X}", u);
    else out += ch;
  }
  return out + "\"";
}

template <class T>
std::string toml_list(const std::vector<T>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

const char* toml_bool(bool b) { return b ? "true" : "false"; }

// One op as an inline table with every key explicit.
struct InlineOp {
  std::string operator()(const ConvSpec& s) const {
    return fmt::format("kind = \"conv\", k = {}, filter = {}, stride = {}, pad = {}, dilation = {}, groups = {}", s.k,
                       toml_list(s.filter), toml_list(s.stride), toml_list(s.pad), toml_list(s.dilation), s.groups);
  }
  std::string operator()(const BiasSpec&) const { return "kind = \"bias\""; }
  std::string operator()(const ResidualAddSpec& s) const {
    return fmt::format("kind = \"residual_add\", alpha = {}", toml_float(s.alpha));
  }
  std::string operator()(const BnInferenceSpec& s) const {
    return fmt::format("kind = \"bn_inference\", mode = \"{}\", epsilon = {}", kBnModeNames.at(s.mode),
                       toml_float(s.epsilon));
  }
  std::string operator()(const BnForwardTrainingSpec& s) const {
    return fmt::format(
        "kind = \"bn_forward_training\", mode = \"{}\", epsilon = {}, exp_avg_factor = {}, running_stats = {}",
        kBnModeNames.at(s.mode), toml_float(s.epsilon), toml_float(s.exp_avg_factor), toml_bool(s.running_stats));
  }
  std::string operator()(const BnBackwardSpec& s) const {
    return fmt::format("kind = \"bn_backward\", mode = \"{}\"", kBnModeNames.at(s.mode));
  }
  std::string operator()(const ActivationSpec& s) const {
    return fmt::format("kind = \"{}\", mode = \"{}\", alpha = {}, beta = {}, gamma = {}",
                       s.backward ? "activation_backward" : "activation", kActivationModeNames.at(s.mode),
                       toml_float(s.alpha), toml_float(s.beta), toml_float(s.gamma));
  }
};

// "3" when every spatial dim agrees, else "2x1".
std::string compact(const std::vector<int>& v) {
  const bool same = std::all_of(v.begin(), v.end(), [&](int x) { return x == v.front(); });
  return same && !v.empty() ? std::to_string(v.front()) : fmt::format("{}", fmt::join(v, "x"));
}

struct Summary {
  std::string operator()(const ConvSpec& s) const {
    std::string text =
        fmt::format("conv(k{} {} s{} p{}", s.k, fmt::join(s.filter, "x"), compact(s.stride), compact(s.pad));
    if (compact(s.dilation) != "1") text += " d" + compact(s.dilation);
    if (s.groups != 1) text += fmt::format(" g{}", s.groups);
    return text + ")";
  }
  std::string operator()(const BiasSpec&) const { return "bias"; }
  std::string operator()(const ResidualAddSpec& s) const {
    return s.alpha == 1 ? "residual_add" : fmt::format("residual_add({})", s.alpha);
  }
  std::string operator()(const BnInferenceSpec& s) const {
    return fmt::format("bn_inference({})", kBnModeNames.at(s.mode));
  }
  std::string operator()(const BnForwardTrainingSpec& s) const {
    return fmt::format("bn_forward_training({})", kBnModeNames.at(s.mode));
  }
  std::string operator()(const BnBackwardSpec& s) const {
    return fmt::format("bn_backward({})", kBnModeNames.at(s.mode));
  }
  std::string operator()(const ActivationSpec& s) const {
    return fmt::format("{}{}", kActivationModeNames.at(s.mode), s.backward ? "_backward" : "");
  }
};

std::string sh_quote(std::string_view s) {  // POSIX sh: '...' with each ' written as '\''
  std::string out = "'";
  for (const char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

std::string to_inline_spec(const Case& c) {
  std::string out;
  out += fmt::format("name = {}\n", toml_string(c.name));
  out += fmt::format("dtype = \"{}\"\n", kDTypeNames.at(static_cast<size_t>(c.dtype)));
  out += fmt::format("layout = \"{}\"\n", kLayoutNames.at(static_cast<size_t>(c.layout)));
  out += fmt::format("input = {}\n", toml_list(c.input));
  out += "op = [\n";
  for (const OpSpec& op : c.ops) out += fmt::format("  {{ {} }},\n", std::visit(InlineOp{}, op));
  out += "]\n";
  const InitSpec& i = c.init;
  out += fmt::format("init = {{ distribution = {}, min = {}, max = {}, mean = {}, stddev = {}, seed = {} }}\n",
                     toml_string(i.distribution), toml_float(i.min), toml_float(i.max), toml_float(i.mean),
                     toml_float(i.stddev), i.seed);
  out += fmt::format("timing = {{ warmup = {}, iters = {} }}\n", c.timing.warmup, c.timing.iters);
  const std::string tolerance =
      c.verify.tolerance ? fmt::format(", tolerance = {}", toml_float(*c.verify.tolerance)) : "";
  out += fmt::format("verify = {{ mode = {}, samples = {}{} }}\n", toml_string(c.verify.mode), c.verify.samples,
                     tolerance);
  return out;
}

std::string repro_command(const Case& c) { return "fusiondriver run --spec-text " + sh_quote(to_inline_spec(c)); }

std::string describe(const Case& c) {
  std::vector<std::string> ops;
  for (const OpSpec& op : c.ops) ops.push_back(std::visit(Summary{}, op));
  return fmt::format("{} {} {} {}", kDTypeNames.at(static_cast<size_t>(c.dtype)),
                     kLayoutNames.at(static_cast<size_t>(c.layout)), fmt::join(c.input, "x"), fmt::join(ops, "+"));
}

}  // namespace hipfuse::driver
