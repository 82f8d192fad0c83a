#include "cli.h"

#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace hipfuse::driver {

namespace {

constexpr const char* kFooter =
    "Exit status: 0 all cases passed (UNSUPPORTED allowed unless --strict); 1 a case FAILED or hit a\n"
    "COMPILE_ERROR; 2 bad command line or spec (nothing ran); 3 no usable GPU (nothing ran).\n"
    "Environment: MIOPEN_LOG_LEVEL (the driver keeps the library quiet unless set or -v),\n"
    "MIOPEN_CUSTOM_CACHE_DIR (kernel cache directory) and the other variables in the README.";

void add_case_selection(CLI::App& app, Options& o) {
  app.add_option("specs", o.specs, "TOML spec files (see docs/spec-format.md)");
  // One value per occurrence: `--set k=v spec.toml` must not take spec.toml as a second value.
  app.add_option("--spec-text", o.spec_texts, "a spec given inline as TOML text (repeatable)")->allow_extra_args(false);
  app.add_option("--set", o.sets, "override a spec key for every case: KEY=VALUE, e.g. op.0.k=128 (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--filter", o.filter, "only the cases whose name matches this regular expression (ECMAScript)");
}

// --format takes table, csv, json, jsonl and the subcommand's `extra` formats.
void add_output(CLI::App& app, Options& o, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> formats{"table", "csv", "json", "jsonl"};
  formats.insert(formats.end(), extra.begin(), extra.end());
  app.add_option("--format", o.format, "output format")->check(CLI::IsMember(formats))->capture_default_str();
  app.add_option("--out", o.out, "write the records to FILE instead of stdout");
}

void add_execution(CLI::App& app, Options& o) {
  app.add_option("--device", o.device, "GPU ordinal to run on")->check(CLI::NonNegativeNumber);
  app.add_option("--iters", o.iters, "timed executions per case (overrides the specs)")->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", o.warmup, "untimed executions before timing (overrides the specs)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--seed", o.seed, "seed of the random data (overrides the specs' init.seed)");
  app.add_option("--verify", o.verify, "verification against the CPU reference (overrides the specs)")
      ->check(CLI::IsMember({"cpu", "sample", "off"}));
  app.add_option("--samples", o.samples, "elements checked by --verify sample (overrides the specs)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--baseline", o.baseline,
                 "also run the case unfused: one plan per op, intermediates in device memory; reports the speedup")
      ->check(CLI::IsMember({"unfused"}));
  app.add_option("--buffer-sets", o.buffer_sets,
                 "buffer sets rotated across timed runs so that L2 does not flatter (0: enough to exceed 3x L2)")
      ->check(CLI::Range(0, 4096));
  app.add_option("--gap-us", o.gap_us,
                 "idle the GPU this many microseconds before each timed execution, which is queued in full when "
                 "its start event is reached (0: back to back; the medians of both are reported)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_flag("--strict", o.strict, "UNSUPPORTED and MISTRUSTED cases count as failures");
}

}  // namespace

ParseResult parse_cli(int argc, const char* const* argv) {
  ParseResult r;
  Options& o = r.options;
  CLI::App app{"fusiondriver: builds, runs, verifies and times hipfuse fusion plans described by TOML specs",
               "fusiondriver"};
  app.footer(kFooter);
  app.require_subcommand(0, 1);
  app.add_flag("--version", o.version, "print hipfuse's version and exit");

  CLI::App* run = app.add_subcommand("run", "run each case: compile, execute, verify against the CPU reference, time");
  add_case_selection(*run, o);
  add_output(*run, o);
  add_execution(*run, o);
  run->add_option("--dump", o.dump_dir, "write inputs, outputs and references as .npy + manifest.json under DIR/<case>/");
  run->add_option("--dump-when", o.dump_when, "which cases --dump writes")->check(CLI::IsMember({"all", "failed"}))
      ->capture_default_str();
  run->add_option("--tag", o.tags, "add a constant column KEY with VALUE to every record (repeatable), e.g. for sweeps")
      ->allow_extra_args(false)
      ->check([](const std::string& s) { return s.find('=') == std::string::npos || s.front() == '=' ? std::string("expected KEY=VALUE") : std::string(); });
  run->add_flag_callback("--no-progress", [&o] { o.progress = false; },
                         "no progress bar (it is drawn only on a terminal anyway)");
  run->add_flag("-v,--verbose", o.verbosity, "more detail: repro line before each case, every check (repeatable)");

  CLI::App* compile = app.add_subcommand("compile", "compile the cases' kernels into the disk cache");
  add_case_selection(*compile, o);
  add_output(*compile, o);
  compile->add_option("--arch", o.arch, "compile offline for this architecture (e.g. sm_90): no GPU needed");
  compile->add_option("--device", o.device, "GPU ordinal to compile for (without --arch)")->check(CLI::NonNegativeNumber);
  compile->add_flag("--strict", o.strict, "UNSUPPORTED cases count as failures");
  compile->add_flag("-v,--verbose", o.verbosity, "more detail");

  CLI::App* list = app.add_subcommand("list", "print the expanded cases without running them");
  add_case_selection(*list, o);
  add_output(*list, o, {"commands"});
  add_execution(*list, o);
  list->add_flag("-v,--verbose", o.verbosity, "more detail (forwarded by --format commands)");

  CLI::App* support = app.add_subcommand(
      "support", "print the support matrix of representative plans, from the solvers' applicability checks (no GPU, "
                 "nothing compiled)");
  add_output(*support, o, {"markdown"});
  support->add_option("--arch", o.arch, "architecture the matrix is computed for (default sm_90)");
  support->add_flag("-v,--verbose", o.verbosity, "let the library log to stderr");

  std::ostringstream out, err;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    r.exit = true;
    r.exit_code = code == 0 ? kExitOk : kExitUsage;
    r.out = out.str();
    r.err = err.str();
    return r;
  }
  o.device_given = (run->count("--device") + compile->count("--device") + list->count("--device")) > 0;
  for (CLI::App* sub : {run, compile, list, support})
    if (sub->parsed()) o.command = sub->get_name();
  if (support->parsed() && o.arch.empty()) o.arch = "sm_90";
  if (o.version) {
    r.exit = true;  // the caller prints the version
    return r;
  }
  if (o.command.empty()) {
    r.exit = true;
    r.exit_code = kExitUsage;
    r.err = fmt::format("fusiondriver: a subcommand is required (run, compile, list, support)\n{}", app.help());
    return r;
  }
  if (o.command != "support" && o.specs.empty() && o.spec_texts.empty()) {
    r.exit = true;
    r.exit_code = kExitUsage;
    r.err = fmt::format("fusiondriver: {}: no spec given (spec files or --spec-text)\n", o.command);
    return r;
  }
  return r;
}

std::vector<std::string> forwarded_run_options(const Options& o) {
  std::vector<std::string> args;
  if (o.device_given) args.insert(args.end(), {"--device", std::to_string(o.device)});
  if (!o.baseline.empty()) args.insert(args.end(), {"--baseline", o.baseline});
  if (o.buffer_sets != 0) args.insert(args.end(), {"--buffer-sets", std::to_string(o.buffer_sets)});
  if (o.gap_us != 0) args.insert(args.end(), {"--gap-us", fmt::format("{}", o.gap_us)});
  if (o.strict) args.push_back("--strict");
  for (int i = 0; i < o.verbosity; ++i) args.push_back("-v");
  return args;
}

}  // namespace hipfuse::driver
