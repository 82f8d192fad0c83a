// fusiondriver support: the support matrix, from the library's own solver applicability
// checks (hipfuseCheckFusionPlanForArch): each representative plan of support_catalog.h is
// built through the public API and the library names the kernel family that would take it,
// or says why none does. Nothing is compiled and no GPU is needed, so it takes well under a
// second. `--format markdown` is what README.md carries (scripts/update-support-matrix.sh).

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "commands.h"
#include "plan_builder.h"
#include "problem.h"
#include "report.h"
#include "support_catalog.h"

namespace hipfuse::driver {

namespace {

struct Verdict {
  bool supported = false;
  std::string solver;  // when supported
  std::string reason;  // when not: the library's message
};

// Asks the library which kernel family takes the plan. A plan the library refuses while it is
// built (an op that cannot follow) is unsupported too, with that reason.
Verdict check_plan(const std::vector<int64_t>& input, const std::vector<OpSpec>& ops, DType dtype, Layout layout,
                   const std::string& arch) {
  Case c;
  c.name = "support";
  c.input = input;
  c.dtype = dtype;
  c.layout = layout;
  c.ops = ops;
  Verdict v;
  try {
    const Problem p = make_problem(c);
    const FusionPlan plan(c, p, 0, c.ops.size());
    v.solver = plan.check_for_arch(arch);
    v.supported = true;
  } catch (const ApiError& e) {
    // The message starts with the refusing call ("hipfuseCheckFusionPlanForArch: ..."): drop it.
    v.reason = e.message.empty() ? e.what() : e.message;
    if (v.reason.rfind(e.call + ": ", 0) == 0) v.reason.erase(0, e.call.size() + 2);
  } catch (const std::exception& e) {
    v.reason = e.what();
  }
  return v;
}

// The library's reason as lines: "no fused kernel supports this plan [...] on ARCH:" is
// followed by one "  Solver: why" line per kernel family; those are the lines kept.
std::vector<std::string> reason_lines(const std::string& message) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= message.size()) {
    std::size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string line = message.substr(start, end - start);
    line.erase(0, line.find_first_not_of(' '));
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  // The first line names the plan's key (which differs per data type and layout): leave it out.
  if (lines.size() > 1 && lines.front().rfind("no fused kernel supports this plan", 0) == 0) lines.erase(lines.begin());
  return lines;
}

// A table as Markdown (pipes, aligned so the source reads well too) or as plain aligned text.
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                         bool markdown) {
  std::vector<std::size_t> width(header.size(), 3);
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = std::max(width[i], header[i].size());
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = markdown ? "|" : "";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const bool last = i + 1 == cells.size();
      if (markdown) s += fmt::format(" {:<{}} |", cells[i], width[i]);
      else s += last ? cells[i] : fmt::format("{:<{}}  ", cells[i], width[i]);
    }
    return s + "\n";
  };
  std::string out = line(header);
  std::vector<std::string> rule;
  for (std::size_t w : width) rule.emplace_back(w, '-');
  if (markdown) {
    out += "|";
    for (std::size_t w : width) out += std::string(w + 2, '-') + "|";
    out += "\n";
  } else {
    out += line(rule);
  }
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string dtype_name(DType d) { return std::string(kDTypeNames.at(static_cast<std::size_t>(d))); }
std::string layout_name(Layout l) { return std::string(kLayoutNames.at(static_cast<std::size_t>(l))); }

// Numbered reasons of the unsupported cells of the matrices; equal reasons share a number.
class Footnotes {
 public:
  std::string cell(const Verdict& v) {
    if (v.supported) return v.solver;
    std::vector<std::string> lines = reason_lines(v.reason);
    auto [it, added] = numbers_.emplace(lines, static_cast<int>(numbers_.size()) + 1);
    if (added) reasons_.push_back(std::move(lines));
    return fmt::format("no [{}]", it->second);
  }
  std::string render(bool markdown) const {
    std::string out;
    for (std::size_t i = 0; i < reasons_.size(); ++i) {
      out += fmt::format("{}[{}] not supported:\n", markdown ? "- " : "", i + 1);
      for (const std::string& l : reasons_[i]) out += fmt::format("  - {}\n", l);
    }
    return out;
  }
  bool empty() const { return reasons_.empty(); }

 private:
  std::map<std::vector<std::string>, int> numbers_;
  std::vector<std::vector<std::string>> reasons_;
};

}  // namespace

int command_support(const Options& o) {
  quiet_library_logs(o.verbosity);
  OutputFile out(o.out);
  const bool markdown = o.format == "markdown";
  const bool text = markdown || o.format == "table";
  const std::vector<std::pair<DType, Layout>> columns{{DType::f32, Layout::nchw}, {DType::f32, Layout::nhwc},
                                                      {DType::f16, Layout::nchw}, {DType::f16, Layout::nhwc},
                                                      {DType::bf16, Layout::nchw}, {DType::bf16, Layout::nhwc}};

  // An architecture the library does not know fails every check the same way: say it once.
  const Verdict probe = check_plan(support_input(), {BiasSpec{}}, DType::f32, Layout::nchw, o.arch);
  if (!probe.supported && probe.reason.find("unknown architecture") != std::string::npos) {
    print_error(fmt::format("support: --arch {}: {}", o.arch, reason_lines(probe.reason).front()));
    return kExitUsage;
  }

  std::vector<std::vector<Cell>> records;  // the machine formats: one record per check
  auto record = [&](const std::string& table, const std::string& label, const std::string& ops, DType d, Layout l,
                    const std::string& activation, const Verdict& v) {
    records.push_back({text_cell(table), text_cell(label), text_cell(ops), text_cell(dtype_name(d)),
                       text_cell(layout_name(l)), text_cell(activation), bool_cell(v.supported), text_cell(v.solver),
                       text_cell(v.reason)});
  };
  Footnotes notes;
  std::string doc = fmt::format(
      "Computed by `fusiondriver support --arch {0}` from the library's solver applicability checks (nothing is "
      "compiled). Each cell names the kernel family that takes the plan on {0}, or \"no\" with the reason below. "
      "Representative plans: {1}.\n\n",
      o.arch, support_defaults());

  // 1. Families x data type x layout.
  std::vector<std::string> header{"family", "plan"};
  for (auto [d, l] : columns) header.push_back(dtype_name(d) + (l == Layout::nchw ? " NCHW" : " NHWC"));
  std::vector<std::vector<std::string>> rows;
  for (const SupportPlan& f : family_plans()) {
    std::vector<std::string> row{f.label, f.ops};
    for (auto [d, l] : columns) {
      const Verdict v = check_plan(f.input, f.plan, d, l, o.arch);
      row.push_back(notes.cell(v));
      record("families", f.label, f.ops, d, l, "", v);
    }
    rows.push_back(std::move(row));
  }
  doc += render_table(header, rows, markdown);

  // 2. Activation modes (fp32 NCHW) x the families that take an activation.
  header = {"activation"};
  for (const ActivationFamily& af : activation_families()) header.push_back(af.name);
  rows.clear();
  for (std::size_t m = 0; m < kActivationModeNames.size(); ++m) {
    const std::string mode(kActivationModeNames[m]);
    std::vector<std::string> row{mode};
    for (const ActivationFamily& af : activation_families()) {
      const Verdict v = check_plan(support_input(), af.plan(static_cast<int>(m)), DType::f32, Layout::nchw, o.arch);
      row.push_back(notes.cell(v));
      record("activations", af.name, af.name, DType::f32, Layout::nchw, mode, v);
    }
    rows.push_back(std::move(row));
  }
  doc += "\nActivation modes (fp32 NCHW):\n\n" + render_table(header, rows, markdown);
  if (!notes.empty()) doc += "\nReasons:\n\n" + notes.render(markdown);

  // 3. Plans no fused kernel takes, with every kernel family's reason (fp32 NCHW).
  doc += "\nNot supported (fp32 NCHW), with each kernel family's reason:\n\n";
  for (const SupportPlan& u : unsupported_plans()) {
    const Verdict v = check_plan(u.input, u.plan, DType::f32, Layout::nchw, o.arch);
    record("unsupported", u.label, u.ops, DType::f32, Layout::nchw, "", v);
    if (v.supported) {
      doc += fmt::format("- {} ({}): supported by {}\n", u.label, u.ops, v.solver);
      continue;
    }
    doc += fmt::format("- {} ({}):\n", u.label, u.ops);
    for (const std::string& l : reason_lines(v.reason)) doc += fmt::format("  - {}\n", l);
  }

  if (text) {
    fmt::print(out.get(), "{}", doc);
  } else {
    write_rows(out.get(), *parse_format(o.format), "support",
               {"table", "family", "plan", "dtype", "layout", "activation", "supported", "solver", "reason"},
               records);
  }
  std::fflush(out.get());
  return kExitOk;
}

}  // namespace hipfuse::driver
