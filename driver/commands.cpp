#include "commands.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include <hipfuse/hipfuse.h>

#include "spec.h"

namespace hipfuse::driver {

std::string version_text() {
  size_t major = 0, minor = 0, patch = 0;
  (void)miopenGetVersion(&major, &minor, &patch);
  return fmt::format("fusiondriver {} (hipfuse {}, MIOpen API {}.{}.{})", HIPFUSE_VERSION_STRING,
                     hipfuseGetVersionString(), major, minor, patch);
}

void print_error(const std::string& message) {
  std::fflush(stdout);
  fmt::print(stderr, "fusiondriver: {}\n", message);
  std::fflush(stderr);
}

void apply_overrides(Case& c, const Options& o) {
  if (o.iters) c.timing.iters = *o.iters;
  if (o.warmup) c.timing.warmup = *o.warmup;
  if (o.seed) c.init.seed = *o.seed;
  if (o.verify) c.verify.mode = *o.verify;
  if (o.samples) c.verify.samples = *o.samples;
}

std::vector<Case> load_cases(const Options& o) {
  std::vector<Case> all;
  for (const std::string& path : o.specs) {
    std::vector<Case> cases = load_spec_file(path, o.sets);
    all.insert(all.end(), std::make_move_iterator(cases.begin()), std::make_move_iterator(cases.end()));
  }
  for (std::size_t i = 0; i < o.spec_texts.size(); ++i) {
    const std::string origin = o.spec_texts.size() == 1 ? "spec-text" : fmt::format("spec-text-{}", i + 1);
    std::vector<Case> cases = load_spec_text(o.spec_texts[i], origin, o.sets);
    all.insert(all.end(), std::make_move_iterator(cases.begin()), std::make_move_iterator(cases.end()));
  }
  for (Case& c : all) apply_overrides(c, o);
  if (o.filter.empty()) return all;
  std::regex re;
  try {
    re = std::regex(o.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw std::runtime_error(fmt::format("--filter: invalid regular expression '{}': {}", o.filter, e.what()));
  }
  std::vector<Case> kept;
  for (Case& c : all)
    if (std::regex_search(c.name, re)) kept.push_back(std::move(c));
  return kept;
}

OutputFile::OutputFile(const std::string& path) {
  if (path.empty() || path == "-") return;
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) {
    file_ = stdout;
    throw std::runtime_error(fmt::format("--out: cannot write {}: {}", path, std::strerror(errno)));
  }
}

OutputFile::~OutputFile() {
  if (file_ && file_ != stdout) std::fclose(file_);
}

void quiet_library_logs(int verbosity) {
  if (verbosity == 0) setenv("MIOPEN_LOG_LEVEL", "2", /*overwrite=*/0);
}

std::string sh_quote_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                             "0123456789_-+=./:,@%") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char ch : word) {
    if (ch == '\'') out += "'\\''";
    else out += ch;
  }
  return out + "'";
}

std::string one_line_command(const std::string& program, const Case& c, const std::vector<std::string>& extra_args) {
  // printf's format: \ and % are special, newlines become \n.
  std::string format;
  for (char ch : to_inline_spec(c)) {
    if (ch == '\\') format += "\\\\";
    else if (ch == '%') format += "%%";
    else if (ch == '\n') format += "\\n";
    else format += ch;
  }
  std::string line = fmt::format("{} run --spec-text \"$(printf {})\"", sh_quote_word(program), sh_quote_word(format));
  for (const std::string& a : extra_args) line += " " + sh_quote_word(a);
  return line;
}

int run_command(const Options& o) {
  try {
    if (o.command == "run") return command_run(o);
    if (o.command == "compile") return command_compile(o);
    if (o.command == "list") return command_list(o);
    if (o.command == "support") return command_support(o);
    print_error(fmt::format("unknown command '{}'", o.command));
    return kExitUsage;
  } catch (const SpecError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitFailed;
  }
}

}  // namespace hipfuse::driver
