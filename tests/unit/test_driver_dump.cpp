// fusiondriver --dump and the validity of the JSON the driver writes (checked by Python's json
// module where python3 exists).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "dump.h"
#include "host_data.h"
#include "problem.h"
#include "report.h"
#include "spec.h"
#include "verify.h"

using namespace hipfuse::driver;
namespace fs = std::filesystem;
namespace ref = hipfuse::ref;

namespace {

bool have_python() { return std::system("python3 -c 'import json' > /dev/null 2>&1") == 0; }

// True when python3 parses the file as JSON (or when there is no python3 to ask).
bool valid_json(const std::string& path) {
  if (!have_python()) return true;
  return std::system(("python3 -m json.tool " + path + " > /dev/null").c_str()) == 0;
}

}  // namespace

TEST_CASE("driver dump: npy files per tensor and a manifest") {
  const std::vector<Case> cases = load_spec_text(R"(
name = "dump/me"
input = [2, 3, 4, 4]
op = [ { kind = "bn_forward_training", mode = "spatial" }, { kind = "activation", mode = "relu" } ]
)",
                                                 "test");
  const Case& c = cases.at(0);
  const Problem p = make_problem(c);
  const HostData h = make_host_data(c, p);
  const Reference r = compute_reference(c, p, h, VerifyPlan{});
  std::vector<std::vector<std::uint8_t>> gpu(p.tensors.size());
  ref::Tensor out = ref::make_tensor(p.output().lengths);
  out.data = r.output;
  gpu[1] = to_bytes(out, p.output());
  for (const auto& [i, v] : r.extra) gpu[static_cast<std::size_t>(i)] = to_bytes(v, p.tensors[static_cast<std::size_t>(i)]);
  Record rec;
  rec.name = c.name;
  rec.status = Status::passed;
  rec.ops = describe(c);

  const fs::path dir = fs::temp_directory_path() / "hipfuse_test_dump";
  fs::remove_all(dir);
  const std::string where = dump_case(dir.string(), 3, c, p, h, gpu, &r, rec);
  CHECK(fs::path(where).filename() == "0003_dump_me");
  for (const char* f : {"input.npy", "output.gpu.npy", "output.ref.npy", "op0.scale.npy", "op0.bn_bias.npy",
                        "op0.saved_mean.gpu.npy", "op0.saved_mean.ref.npy", "op0.running_variance.npy",
                        "op0.running_variance.gpu.npy", "op0.running_variance.ref.npy", "manifest.json"})
    CHECK_MESSAGE(fs::exists(fs::path(where) / f), f);
  const std::string manifest = (fs::path(where) / "manifest.json").string();
  std::ifstream in(manifest);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text.find("\"case\":\"dump/me\"") != std::string::npos);
  CHECK(text.find("\"role\":\"running_variance\"") != std::string::npos);
  CHECK(valid_json(manifest));
  fs::remove_all(dir);
  CHECK(dump_dir_name(12, "a/b c:d") == "0012_a_b_c_d");
}

TEST_CASE("driver report: the JSON document is valid JSON") {
  const fs::path path = fs::temp_directory_path() / "hipfuse_test_records.json";
  std::FILE* f = std::fopen(path.string().c_str(), "w");
  REQUIRE(f);
  Reporter rep(Format::json, f, nullptr, 0);
  Record r;
  r.name = "weird \"name\"\n\t\\ µ";
  r.status = Status::failed;
  r.reason = std::string("control \x01 char");
  r.median_us = 1.0 / 3.0;
  r.nrms = 1e-300;
  r.tags = {{"sweep_key", "op.0.k"}, {"sweep_value", "[1, 2]"}};
  r.checks.push_back(CheckResult{"output", "FAILED", 0.5, 1e10, 1e-3, 10, 1, "m"});
  rep.add(r);
  rep.add(Record{});
  rep.finish();
  std::fclose(f);
  CHECK(valid_json(path.string()));
  fs::remove(path);
}

TEST_CASE("driver report: generic rows as JSON are valid JSON") {
  const fs::path path = fs::temp_directory_path() / "hipfuse_test_rows.json";
  std::FILE* f = std::fopen(path.string().c_str(), "w");
  REQUIRE(f);
  write_rows(f, Format::json, "cases", {"name", "n", "ok"},
             {{text_cell("a\"b"), number_cell(1.5), bool_cell(true)}, {text_cell(""), number_cell({}), bool_cell({})}});
  std::fclose(f);
  CHECK(valid_json(path.string()));
  fs::remove(path);
}
