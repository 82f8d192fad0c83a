// fusiondriver: command-line parsing, case loading and overrides, per-case commands.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "cli.h"
#include "commands.h"
#include "spec.h"

using namespace hipfuse::driver;

namespace {

const char* kSpec = R"(
name = "t"
dtype = ["fp32", "fp16"]
input = [2, 8, 8, 8]
op = [ { kind = "conv", k = 8, filter = 3, pad = 1 }, { kind = "bias" }, { kind = "activation", mode = "relu" } ]
[timing]
warmup = 2
iters = 7
)";

// Runs a shell command and returns its stdout.
std::string shell(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  REQUIRE(p);
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p.get())) > 0) out.append(buf.data(), n);
  return out;
}

}  // namespace

TEST_CASE("driver cli: run with every option") {
  const ParseResult r = parse_cli({"fusiondriver", "run", "a.toml", "b.toml", "--set", "op.0.k=16", "--set",
                                   "dtype=fp16", "--format", "jsonl", "--out", "x.jsonl", "--device", "1", "--iters",
                                   "20", "--warmup", "3", "--seed", "42", "--verify", "sample", "--samples", "500",
                                   "--baseline", "unfused", "--dump", "d", "--dump-when", "failed", "--filter", "cba",
                                   "--buffer-sets", "4", "--gap-us", "50", "--strict", "--no-progress", "-v", "-v",
                                   "--spec-text", "name = 'x'"});
  REQUIRE_FALSE(r.exit);
  const Options& o = r.options;
  CHECK(o.command == "run");
  CHECK(o.specs == std::vector<std::string>{"a.toml", "b.toml"});
  CHECK(o.sets == std::vector<std::string>{"op.0.k=16", "dtype=fp16"});
  CHECK(o.spec_texts.size() == 1);
  CHECK(o.format == "jsonl");
  CHECK(o.out == "x.jsonl");
  CHECK(o.device == 1);
  CHECK(o.device_given);
  CHECK(o.iters == 20);
  CHECK(o.warmup == 3);
  CHECK(o.seed == 42u);
  CHECK(o.verify == "sample");
  CHECK(o.samples == 500);
  CHECK(o.baseline == "unfused");
  CHECK(o.dump_dir == "d");
  CHECK(o.dump_when == "failed");
  CHECK(o.filter == "cba");
  CHECK(o.buffer_sets == 4);
  CHECK(o.gap_us == 50);
  CHECK(o.strict);
  CHECK_FALSE(o.progress);
  CHECK(o.verbosity == 2);
}

TEST_CASE("driver cli: defaults, --version, usage errors") {
  const ParseResult d = parse_cli({"fusiondriver", "run", "a.toml"});
  REQUIRE_FALSE(d.exit);
  CHECK(d.options.format == "table");
  CHECK(d.options.device == 0);
  CHECK_FALSE(d.options.device_given);
  CHECK_FALSE(d.options.iters.has_value());
  CHECK(d.options.progress);

  const ParseResult v = parse_cli({"fusiondriver", "--version"});
  CHECK(v.exit);
  CHECK(v.options.version);
  CHECK(v.exit_code == 0);

  const ParseResult h = parse_cli({"fusiondriver", "run", "--help"});
  CHECK(h.exit);
  CHECK(h.exit_code == 0);
  CHECK(h.out.find("--baseline") != std::string::npos);

  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"fusiondriver"},
           {"fusiondriver", "run"},
           {"fusiondriver", "run", "a.toml", "--format", "xml"},
           {"fusiondriver", "run", "a.toml", "--verify", "maybe"},
           {"fusiondriver", "run", "a.toml", "--iters", "0"},
           {"fusiondriver", "run", "a.toml", "--bogus"},
           {"fusiondriver", "run", "a.toml", "--baseline", "fused"},
           {"fusiondriver", "frobnicate"},
       }) {
    const ParseResult b = parse_cli(bad);
    CHECK_MESSAGE(b.exit, bad.back());
    CHECK_MESSAGE(b.exit_code == kExitUsage, bad.back());
  }
}

TEST_CASE("driver cli: repeatable options take one value each; spec files may follow them") {
  const ParseResult r = parse_cli({"fusiondriver", "run", "--set", "op.0.k=16", "a.toml", "--spec-text", "x = 1",
                                   "b.toml", "--tag", "k=v", "c.toml"});
  REQUIRE_FALSE(r.exit);
  CHECK(r.options.specs == std::vector<std::string>{"a.toml", "b.toml", "c.toml"});
  CHECK(r.options.sets == std::vector<std::string>{"op.0.k=16"});
  CHECK(r.options.spec_texts == std::vector<std::string>{"x = 1"});
  CHECK(r.options.tags == std::vector<std::string>{"k=v"});
  CHECK(parse_cli({"fusiondriver", "run", "a.toml", "--tag", "novalue"}).exit);
}

TEST_CASE("driver cli: compile, list and support") {
  const ParseResult c = parse_cli({"fusiondriver", "compile", "--arch", "sm_90", "s.toml"});
  REQUIRE_FALSE(c.exit);
  CHECK(c.options.command == "compile");
  CHECK(c.options.arch == "sm_90");
  const ParseResult l = parse_cli({"fusiondriver", "list", "s.toml", "--format", "commands", "--device", "2"});
  REQUIRE_FALSE(l.exit);
  CHECK(l.options.format == "commands");
  CHECK(forwarded_run_options(l.options) == std::vector<std::string>{"--device", "2"});
  const ParseResult gap = parse_cli({"fusiondriver", "list", "s.toml", "--format", "commands", "--gap-us", "50"});
  REQUIRE_FALSE(gap.exit);
  CHECK(forwarded_run_options(gap.options) == std::vector<std::string>{"--gap-us", "50"});
  CHECK(parse_cli({"fusiondriver", "run", "s.toml", "--gap-us", "-1"}).exit);
  CHECK(parse_cli({"fusiondriver", "run", "s.toml", "--format", "commands"}).exit);  // list only
  const ParseResult s = parse_cli({"fusiondriver", "support"});
  REQUIRE_FALSE(s.exit);
  CHECK(s.options.arch == "sm_90");
  const ParseResult md = parse_cli({"fusiondriver", "support", "--format", "markdown"});
  REQUIRE_FALSE(md.exit);
  CHECK(md.options.format == "markdown");
  CHECK(parse_cli({"fusiondriver", "run", "s.toml", "--format", "markdown"}).exit);  // support only
}

TEST_CASE("driver cases: loading, CLI overrides and the filter") {
  Options o;
  o.spec_texts = {kSpec};
  std::vector<Case> all = load_cases(o);
  REQUIRE(all.size() == 2);
  CHECK(all[0].timing.iters == 7);
  o.iters = 11;
  o.warmup = 0;
  o.seed = 99;
  o.verify = "off";
  o.filter = "fp16";
  std::vector<Case> some = load_cases(o);
  REQUIRE(some.size() == 1);
  CHECK(some[0].name.find("fp16") != std::string::npos);
  CHECK(some[0].timing.iters == 11);
  CHECK(some[0].timing.warmup == 0);
  CHECK(some[0].init.seed == 99u);
  CHECK(some[0].verify.mode == "off");
  o.filter = "(";
  CHECK_THROWS_WITH_AS(load_cases(o), doctest::Contains("--filter"), std::runtime_error);
  o.filter.clear();
  o.sets = {"op.0.k=32"};
  CHECK(std::get<ConvSpec>(load_cases(o)[0].ops[0]).k == 32);
  o.spec_texts = {"name = \"broken\"\ninput = [2, 8]\n"};
  CHECK_THROWS_AS(load_cases(o), SpecError);
}

TEST_CASE("driver list --format commands: one line that POSIX sh turns back into the inline spec") {
  Options o;
  o.spec_texts = {std::string(kSpec) + "\n[init]\ndistribution = \"uniform\"\nmin = -0.5\nmax = 0.5\n"};
  const std::vector<Case> cases = load_cases(o);
  const Case& c = cases[0];
  const std::string line = one_line_command("/opt/my dir/fusiondriver", c, {"--device", "1"});
  CHECK(line.find('\n') == std::string::npos);
  // Replace the program by printf so the shell prints the arguments it would pass.
  const std::string cmd = "printf '%s\\n' " + line.substr(line.find(" run "));
  const std::string printed = shell(cmd);
  std::string spec = to_inline_spec(c);
  while (!spec.empty() && spec.back() == '\n') spec.pop_back();  // $(...) strips trailing newlines
  CHECK(printed == "run\n--spec-text\n" + spec + "\n--device\n1\n");
  // The text loads back into the same case.
  const std::vector<Case> again = load_spec_text(spec, "x");
  REQUIRE(again.size() == 1);
  CHECK(again[0] == c);
}

TEST_CASE("driver sh quoting") {
  CHECK(sh_quote_word("plain-word_1.toml") == "plain-word_1.toml");
  CHECK(sh_quote_word("it's") == "'it'\\''s'");
  CHECK(sh_quote_word("a b") == "'a b'");
  CHECK(sh_quote_word("") == "''");
  CHECK(shell("printf %s " + sh_quote_word("$(echo no) `x` \"q\" 'z'")) == "$(echo no) `x` \"q\" 'z'");
}
