#pragma once
// The command line (CLI11): subcommands run / compile / list / support and their options.
// parse_cli() builds the app and parses argv without side effects, so tests can check it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hipfuse::driver {

// Exit codes of fusiondriver.
inline constexpr int kExitOk = 0;          // every case ran and passed (or was unsupported)
inline constexpr int kExitFailed = 1;      // a case FAILED / COMPILE_ERROR (--strict: also UNSUPPORTED, MISTRUSTED)
inline constexpr int kExitUsage = 2;       // bad command line or spec: nothing ran
inline constexpr int kExitNoDevice = 3;    // no usable GPU: nothing ran

struct Options {
  std::string command;  // "run", "compile", "list", "support"; "" with --version
  bool version = false;

  // Which cases.
  std::vector<std::string> specs;       // spec files
  std::vector<std::string> spec_texts;  // --spec-text
  std::vector<std::string> sets;        // --set KEY=VALUE, in order
  std::string filter;                   // --filter REGEX on case names

  // Output.
  std::string format = "table";  // table | csv | json | jsonl (list: also commands; support: also markdown)
  std::string out;               // --out FILE ("" = stdout)
  int verbosity = 0;             // -v, -vv
  bool progress = true;          // --no-progress turns the bar off
  std::vector<std::string> tags; // --tag KEY=VALUE: constant columns added to every record

  // Execution (run, compile without --arch).
  int device = 0;
  bool device_given = false;
  std::optional<int> iters, warmup;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> verify;  // cpu | sample | off
  std::optional<std::int64_t> samples;
  std::string baseline;               // "" or "unfused"
  std::string dump_dir;
  std::string dump_when = "all";      // all | failed
  int buffer_sets = 0;                // 0: automatic L2 rotation
  double gap_us = 0;                  // GPU idle time before each timed execution; 0: back to back
  bool strict = false;

  // compile / support.
  std::string arch;  // --arch sm_90: offline, no GPU
};

struct ParseResult {
  Options options;
  bool exit = false;    // help, --version handled by the caller, or an error: stop with exit_code
  int exit_code = 0;
  std::string out, err;  // what CLI11 printed (help on out, errors on err)
};

// argv[0] is the program name.
ParseResult parse_cli(int argc, const char* const* argv);
inline ParseResult parse_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return parse_cli(static_cast<int>(argv.size()), argv.data());
}

// Options that a per-case command of `list --format commands` must carry along (--device,
// --baseline, --verify, -v ... but not the case selection).
std::vector<std::string> forwarded_run_options(const Options& o);

}  // namespace hipfuse::driver
