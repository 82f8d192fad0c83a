// fusiondriver support: the support matrix, computed by asking the library, through the public
// API, to compile representative plans offline for an architecture (no GPU needed):
//   1. plan families x dtype x layout;
//   2. activation modes x the families that take an activation (fp32, NCHW).
// A cell is "yes" when hipfuseCompileFusionPlanForArch succeeds, "no" with the library's reason
// when it reports UnsupportedOp / NotImplemented (or rejects the plan while it is built), and
// "error" otherwise. The table format is Markdown, ready for the README.

#include <functional>
#include <map>
#include <regex>

#include <fmt/format.h>

#include <hipfuse/hipfuse.h>

#include "commands.h"
#include "plan_builder.h"
#include "progress.h"
#include "problem.h"
#include "report.h"

namespace hipfuse::driver {

namespace {

ConvSpec conv(int k, int filter, int pad, int groups = 1, int dims = 2) {
  ConvSpec c;
  c.k = k;
  c.filter.assign(static_cast<std::size_t>(dims), filter);
  c.stride.assign(static_cast<std::size_t>(dims), 1);
  c.pad.assign(static_cast<std::size_t>(dims), pad);
  c.dilation.assign(static_cast<std::size_t>(dims), 1);
  c.groups = groups;
  return c;
}
ActivationSpec act(int mode = 3, bool backward = false) {
  ActivationSpec a;
  a.mode = mode;
  a.alpha = 0.5;
  a.beta = 1.5;
  a.gamma = 2.0;
  a.backward = backward;
  return a;
}

struct Family {
  std::string name;
  std::vector<int64_t> input;
  std::vector<OpSpec> ops;
};

std::vector<Family> families() {
  const std::vector<int64_t> x{2, 16, 8, 8};
  BnInferenceSpec bn_spatial;
  BnInferenceSpec bn_peract;
  bn_peract.mode = kBnPerActivation;
  BnForwardTrainingSpec bn_train;
  BnBackwardSpec bn_bwd;
  return {
      {"conv", x, {conv(16, 3, 1)}},
      {"conv+bias", x, {conv(16, 3, 1), BiasSpec{}}},
      {"conv+activation", x, {conv(16, 3, 1), act()}},
      {"conv+bias+activation", x, {conv(16, 3, 1), BiasSpec{}, act()}},
      {"conv(1x1)+bias+activation", x, {conv(16, 1, 0), BiasSpec{}, act()}},
      {"conv(groups 4)+bias+activation", x, {conv(16, 3, 1, 4), BiasSpec{}, act()}},
      {"conv(depthwise)+bias+activation", x, {conv(16, 3, 1, 16), BiasSpec{}, act()}},
      {"conv(3-D)+bias+activation", {2, 16, 4, 8, 8}, {conv(16, 3, 1, 1, 3), BiasSpec{}, act()}},
      {"conv+residual_add+bias+activation", x, {conv(16, 3, 1), ResidualAddSpec{}, BiasSpec{}, act()}},
      {"conv+bn_inference", x, {conv(16, 3, 1), bn_spatial}},
      {"conv+bn_inference+activation", x, {conv(16, 3, 1), bn_spatial, act()}},
      {"conv+bias+bn_inference+activation", x, {conv(16, 3, 1), BiasSpec{}, bn_spatial, act()}},
      {"bn_inference+activation", x, {bn_spatial, act()}},
      {"bn_inference(per_activation)+activation", x, {bn_peract, act()}},
      {"bn_forward_training+activation", x, {bn_train, act()}},
      {"bn_backward+activation_backward", x, {bn_bwd, act(3, true)}},
      {"bias", x, {BiasSpec{}}},
      {"activation", x, {act()}},
      {"residual_add", x, {ResidualAddSpec{}}},
      {"bn_inference", x, {bn_spatial}},
      {"bn_forward_training", x, {bn_train}},
      // Sequences a fused kernel is not expected to cover: the library says why.
      {"conv+conv", x, {conv(16, 3, 1), conv(16, 1, 0)}},
      {"conv+bn_forward_training+activation", x, {conv(16, 3, 1), bn_train, act()}},
      {"activation+conv", x, {act(), conv(16, 3, 1)}},
      {"bn_backward", x, {bn_bwd}},
  };
}

struct Cell_ {
  std::string verdict;  // yes / no / error
  std::string solver, reason;
};

Cell_ probe(const Family& f, DType dtype, Layout layout, const std::string& arch) {
  Case c;
  c.name = f.name;
  c.input = f.input;
  c.dtype = dtype;
  c.layout = layout;
  c.ops = f.ops;
  Cell_ out;
  try {
    const Problem p = make_problem(c);
    FusionPlan plan(c, p, 0, c.ops.size());
    plan.compile_for_arch(arch);
    out.verdict = "yes";
    out.solver = plan.info().solver;
  } catch (const ApiError& e) {
    out.verdict = is_unsupported(e.status) || e.call.rfind("miopenCreateOp", 0) == 0 ||
                          e.call.rfind("hipfuseCreateOp", 0) == 0
                      ? "no"
                      : "error";
    out.reason = e.message.empty() ? e.what() : e.message;
  } catch (const std::exception& e) {
    out.verdict = "no";
    out.reason = e.what();
  }
  return out;
}

// A reason as one Markdown-safe line, with what differs between cells of one row (the plan's
// description, dtype and layout) abstracted, so that a row shares its footnote.
std::string normalize_reason(const std::string& reason) {
  std::string s = std::regex_replace(reason, std::regex("\\s*\\n\\s*"), "; ");
  s = std::regex_replace(s, std::regex("\\|"), "/");
  s = std::regex_replace(s, std::regex("^hipfuseCompileFusionPlanForArch: "), "");
  s = std::regex_replace(s, std::regex(" \\[[^\\]]*\\]"), "");
  s = std::regex_replace(s, std::regex("\\b(fp32|fp16|bf16)\\b"), "<dtype>");
  s = std::regex_replace(s, std::regex("\\((nchw|nhwc)\\)"), "(<layout>)");
  s = std::regex_replace(s, std::regex(":; "), ": ");
  return s;
}

}  // namespace

int command_support(const Options& o) {
  quiet_library_logs(o.verbosity);
  OutputFile out(o.out);
  const Format format = *parse_format(o.format);
  const std::vector<std::pair<DType, Layout>> columns{{DType::f32, Layout::nchw}, {DType::f32, Layout::nhwc},
                                                      {DType::f16, Layout::nchw}, {DType::f16, Layout::nhwc},
                                                      {DType::bf16, Layout::nchw}, {DType::bf16, Layout::nhwc}};
  auto column_name = [](DType d, Layout l) {
    return fmt::format("{} {}", kDTypeNames.at(static_cast<std::size_t>(d)), kLayoutNames.at(static_cast<std::size_t>(l)));
  };
  std::vector<std::vector<Cell>> rows;  // machine formats: one row per probe
  std::map<std::string, int> footnotes; // reason -> number
  std::vector<std::string> footnote_text;
  auto note = [&](const std::string& reason) {
    const std::string r = normalize_reason(reason);
    auto [it, added] = footnotes.emplace(r, static_cast<int>(footnotes.size()) + 1);
    if (added) footnote_text.push_back(r);
    return it->second;
  };
  auto cell_text = [&](const Cell_& c) {
    if (c.verdict == "yes") return c.solver.empty() ? std::string("yes") : fmt::format("yes ({})", c.solver);
    return fmt::format("{} [{}]", c.verdict, note(c.reason));
  };
  const bool tty = is_terminal(stderr);
  int probes = 0;
  const int total = static_cast<int>(families().size() * columns.size() + 10 * 4);
  auto progress = [&] {
    ++probes;
    if (tty) fmt::print(stderr, "\r\033[Kcompiling {} / {} for {}", probes, total, o.arch);
  };

  std::string md = fmt::format(
      "Support matrix for {} (hipfuse {}), from `fusiondriver support --arch {}`: each cell compiles a\n"
      "representative plan (input 2x16x8x8, 3x3 conv with K=16, ReLU) offline; \"yes\" names the kernel family.\n\n",
      o.arch, hipfuseGetVersionString(), o.arch);
  md += "| plan |";
  for (auto [d, l] : columns) md += " " + column_name(d, l) + " |";
  md += "\n|---|";
  for (std::size_t i = 0; i < columns.size(); ++i) md += "---|";
  md += "\n";
  for (const Family& f : families()) {
    md += "| " + f.name + " |";
    for (auto [d, l] : columns) {
      const Cell_ c = probe(f, d, l, o.arch);
      progress();
      md += " " + cell_text(c) + " |";
      rows.push_back({text_cell("plans"), text_cell(f.name), text_cell(std::string(kDTypeNames.at(static_cast<std::size_t>(d)))),
                      text_cell(std::string(kLayoutNames.at(static_cast<std::size_t>(l)))), text_cell("relu"),
                      bool_cell(c.verdict == "yes"), text_cell(c.verdict), text_cell(c.solver), text_cell(c.reason)});
    }
    md += "\n";
  }

  // Activation modes, fp32 NCHW.
  const std::vector<int64_t> x{2, 16, 8, 8};
  const std::vector<std::pair<std::string, std::function<std::vector<OpSpec>(int)>>> act_families{
      {"conv+bias+activation", [](int m) { return std::vector<OpSpec>{conv(16, 3, 1), BiasSpec{}, act(m)}; }},
      {"bn_inference+activation", [](int m) { return std::vector<OpSpec>{BnInferenceSpec{}, act(m)}; }},
      {"bn_forward_training+activation", [](int m) { return std::vector<OpSpec>{BnForwardTrainingSpec{}, act(m)}; }},
      {"bn_backward+activation_backward", [](int m) { return std::vector<OpSpec>{BnBackwardSpec{}, act(m, true)}; }},
  };
  md += "\nActivation modes (fp32 nchw):\n\n| activation |";
  for (const auto& af : act_families) md += " " + af.first + " |";
  md += "\n|---|";
  for (std::size_t i = 0; i < act_families.size(); ++i) md += "---|";
  md += "\n";
  for (int m = 0; m < static_cast<int>(kActivationModeNames.size()); ++m) {
    const std::string mode(kActivationModeNames[static_cast<std::size_t>(m)]);
    md += "| " + mode + " |";
    for (const auto& af : act_families) {
      const Cell_ c = probe(Family{af.first, x, af.second(m)}, DType::f32, Layout::nchw, o.arch);
      progress();
      md += " " + cell_text(c) + " |";
      rows.push_back({text_cell("activations"), text_cell(af.first), text_cell("fp32"), text_cell("nchw"),
                      text_cell(mode), bool_cell(c.verdict == "yes"), text_cell(c.verdict), text_cell(c.solver),
                      text_cell(c.reason)});
    }
    md += "\n";
  }
  if (tty) fmt::print(stderr, "\r\033[K");
  if (!footnote_text.empty()) {
    md += "\nReasons:\n\n";
    for (std::size_t i = 0; i < footnote_text.size(); ++i) md += fmt::format("{}. {}\n", i + 1, footnote_text[i]);
  }

  if (format == Format::table) {
    fmt::print(out.get(), "{}", md);
  } else {
    write_rows(out.get(), format, "support",
               {"table", "plan", "dtype", "layout", "activation", "supported", "verdict", "solver", "reason"}, rows);
  }
  std::fflush(out.get());
  return kExitOk;
}

}  // namespace hipfuse::driver
