// fusiondriver: escaping, CSV / JSON records, status and summary lines, exit codes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "report.h"

using namespace hipfuse::driver;

namespace {

// Splits one CSV line per RFC 4180 (quoted fields, doubled quotes).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
      else if (ch == '"') quoted = false;
      else fields.back() += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else {
      fields.back() += ch;
    }
  }
  return fields;
}

std::string read_all(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

Record sample_record() {
  Record r;
  r.name = "cba/\"quoted\",name";
  r.status = Status::failed;
  r.reason = "output: nrms 1e-2 > 5e-4\nsecond line";
  r.dtype = "fp16";
  r.layout = "nhwc";
  r.shape = "2x8x8x8";
  r.ops = "fp16 nhwc 2x8x8x8 conv(k8 3x3 s1 p1)+bias+relu";
  r.compile_ms = 12.5;
  r.cache_hit = false;
  r.kernels = 1;
  r.min_us = 1.5;
  r.median_us = 2.0;
  r.max_us = 3.0;
  r.gbps = 100.25;
  r.nrms = std::numeric_limits<double>::quiet_NaN();
  r.repro = "fusiondriver run --spec-text 'name = \"x\"\ndtype = \"fp16\"\n'";
  r.checks.push_back(CheckResult{"output", "FAILED", 1e-2, 0.5, 5e-4, 1024, 3, "msg \"q\""});
  return r;
}

}  // namespace

TEST_CASE("driver report: CSV escaping") {
  CHECK(csv_escape("plain") == "plain");
  CHECK(csv_escape("a,b") == "\"a,b\"");
  CHECK(csv_escape("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_escape("two\nlines") == "\"two\nlines\"");
  CHECK(csv_escape("") == "");
}

TEST_CASE("driver report: JSON escaping and numbers") {
  CHECK(json_escape("a\"b\\c") == "a\\\"b\\\\c");
  CHECK(json_escape("x\ny\tz\r") == "x\\ny\\tz\\r");
  CHECK(json_escape(std::string("\x01", 1)) == "\\u0001");
  CHECK(json_escape("µs") == "µs");  // UTF-8 passes through
  CHECK(json_number(std::nullopt) == "null");
  CHECK(json_number(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(json_number(1.5) == "1.5");
  CHECK(std::stod(json_number(1e-7)) == 1e-7);
}

TEST_CASE("driver report: a CSV row has one field per column and survives quoting") {
  const Record r = sample_record();
  const std::string row = csv_row(r);
  // The row holds newlines inside quoted fields: split on the whole text.
  const std::vector<std::string> fields = split_csv(row);
  REQUIRE(fields.size() == csv_columns().size());
  CHECK(fields[0] == r.name);
  CHECK(fields[1] == "FAILED");
  CHECK(fields[2] == r.reason);
  const auto col = [&](const std::string& name) {
    for (std::size_t i = 0; i < csv_columns().size(); ++i)
      if (csv_columns()[i] == name) return fields[i];
    FAIL("no column " << name);
    return std::string();
  };
  CHECK(col("median_us") == "2.000");
  CHECK(col("cache_hit") == "false");
  CHECK(col("nrms") == "");  // NaN: empty
  CHECK(col("speedup") == "");
  CHECK(col("repro") == r.repro);
}

TEST_CASE("driver report: JSON object fields") {
  const std::string j = json_object(sample_record());
  CHECK(j.front() == '{');
  CHECK(j.back() == '}');
  CHECK(j.find('\n') == std::string::npos);  // one line (jsonl)
  for (const char* key : {"\"name\":", "\"status\":\"FAILED\"", "\"reason\":", "\"dtype\":\"fp16\"", "\"layout\":",
                          "\"shape\":", "\"ops\":", "\"compile_ms\":12.5", "\"cache_hit\":false", "\"kernels\":1",
                          "\"min_us\":1.5", "\"median_us\":2", "\"max_us\":3", "\"gbps\":100.25", "\"tflops\":null",
                          "\"nrms\":null", "\"max_abs\":null", "\"baseline_us\":null", "\"baseline_kernels\":null",
                          "\"speedup\":null", "\"repro\":", "\"checks\":[{\"tensor\":\"output\"", "\"unwritten\":3"})
    CHECK_MESSAGE(j.find(key) != std::string::npos, key);
  CHECK(j.find("cba/\\\"quoted\\\",name") != std::string::npos);
  CHECK(j.find("\\nsecond line") != std::string::npos);
}

TEST_CASE("driver report: status line and summary line") {
  Record r = sample_record();
  r.status = Status::passed;
  r.reason.clear();
  r.nrms = 1.25e-4;
  r.max_abs = 3e-3;
  const std::string line = status_line(r);
  CHECK(line.rfind("PASSED", 0) == 0);
  CHECK(line.find(r.name) != std::string::npos);
  CHECK(line.find("median 2.00 us") != std::string::npos);
  CHECK(line.find("nrms 1.25e-04") != std::string::npos);
  CHECK(line.find('\n') == std::string::npos);
  Record u;
  u.name = "x";
  u.status = Status::unsupported;
  u.reason = "no kernel family";
  CHECK(status_line(u) == "UNSUPPORTED   x  (no kernel family)");

  Counts c;
  CHECK(summary_line(c) == "0 passed, 0 failed");
  c[Status::passed] = 3;
  c[Status::failed] = 1;
  CHECK(summary_line(c) == "3 passed, 1 failed");
  c[Status::unsupported] = 2;
  c[Status::compile_error] = 1;
  CHECK(summary_line(c) == "3 passed, 1 failed, 2 unsupported, 1 compile error");
  CHECK(c.total() == 7);
}

TEST_CASE("driver report: exit codes") {
  Counts c;
  c[Status::passed] = 2;
  CHECK(exit_code(c, false) == 0);
  c[Status::unsupported] = 1;
  c[Status::mistrusted] = 1;
  CHECK(exit_code(c, false) == 0);
  CHECK(exit_code(c, true) == 1);
  Counts f;
  f[Status::compile_error] = 1;
  CHECK(exit_code(f, false) == 1);
}

TEST_CASE("driver report: Reporter writes CSV rows, then the summary on the human stream") {
  std::FILE* records = std::tmpfile();
  std::FILE* human = std::tmpfile();
  REQUIRE(records);
  REQUIRE(human);
  Reporter rep(Format::csv, records, human, 0);
  Record a = sample_record();
  Record b = sample_record();
  b.status = Status::passed;
  b.reason.clear();
  rep.add(a);
  rep.add(b);
  const Counts counts = rep.finish();
  CHECK(counts[Status::failed] == 1);
  CHECK(counts[Status::passed] == 1);
  const std::string csv = read_all(records);
  CHECK(csv.rfind("name,status,reason,", 0) == 0);
  const std::string text = read_all(human);
  CHECK(text.find("FAILED") != std::string::npos);
  CHECK(text.find("  repro: fusiondriver run") != std::string::npos);  // failures carry the repro
  const std::string summary = "\n1 passed, 1 failed\n";
  REQUIRE(text.size() >= summary.size());
  CHECK(text.substr(text.size() - summary.size()) == summary);
  std::fclose(records);
  std::fclose(human);
}

TEST_CASE("driver report: Reporter JSON document and jsonl lines") {
  std::FILE* f = std::tmpfile();
  Reporter rep(Format::json, f, nullptr, 0);
  rep.add(sample_record());
  rep.finish();
  const std::string doc = read_all(f);
  CHECK(doc.rfind("{\"records\":[", 0) == 0);
  CHECK(doc.find("\"summary\":{\"PASSED\":0,\"FAILED\":1,") != std::string::npos);
  std::fclose(f);

  std::FILE* g = std::tmpfile();
  Reporter lines(Format::jsonl, g, nullptr, 0);
  lines.add(sample_record());
  lines.add(sample_record());
  lines.finish();
  const std::string jl = read_all(g);
  CHECK(std::count(jl.begin(), jl.end(), '\n') == 2);
  std::fclose(g);
}

TEST_CASE("driver report: generic rows") {
  std::FILE* f = std::tmpfile();
  write_rows(f, Format::csv, "x", {"a", "b", "c"}, {{text_cell("x,y"), number_cell(2.5), bool_cell(true)}});
  CHECK(read_all(f) == "a,b,c\n\"x,y\",2.5,true\n");
  std::fclose(f);
  std::FILE* g = std::tmpfile();
  write_rows(g, Format::jsonl, "x", {"a", "b"}, {{text_cell("q\""), number_cell(std::nullopt)}});
  CHECK(read_all(g) == "{\"a\":\"q\\\"\",\"b\":null}\n");
  std::fclose(g);
}
