#include "dump.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "npy.h"

namespace hipfuse::driver {

std::string dump_dir_name(int index, const std::string& case_name) {
  std::string safe;
  for (char ch : case_name) {
    const bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == '=' || ch == '-';
    safe += ok ? ch : '_';
  }
  if (safe.size() > 160) safe.resize(160);
  return fmt::format("{:04}_{}", index, safe);
}

namespace {

const char* access_name(Access a) {
  switch (a) {
    case Access::read: return "read";
    case Access::write: return "write";
    case Access::read_write: return "read_write";
  }
  return "?";
}

std::string json_list(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

}  // namespace

std::string dump_case(const std::string& dir, int index, const Case& c, const Problem& p, const HostData& h,
                      const std::vector<std::vector<std::uint8_t>>& gpu, const Reference* reference,
                      const Record& record) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(dir) / dump_dir_name(index, c.name);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) throw std::runtime_error(fmt::format("--dump: cannot create {}: {}", root.string(), ec.message()));

  std::string tensors;
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const TensorInfo& t = p.tensors[i];
    std::vector<std::string> files;
    if (t.access != Access::write && i < h.values.size() && !h.values[i].data.empty()) {
      const std::string f = t.name + ".npy";
      write_npy((root / f).string(), h.values[i], t.dtype);
      files.push_back(fmt::format("\"input\":\"{}\"", f));
    }
    if (t.is_output() && i < gpu.size() && !gpu[i].empty()) {
      const std::string f = t.name + ".gpu.npy";
      write_npy((root / f).string(), from_bytes(gpu[i], t), t.dtype);
      files.push_back(fmt::format("\"gpu\":\"{}\"", f));
    }
    if (reference && t.role == Role::output && !reference->output.empty()) {
      const std::string f = t.name + ".ref.npy";
      if (reference->sampled) {
        write_npy_f64((root / f).string(), {static_cast<int64_t>(reference->output.size())}, reference->output);
        write_npy_i64((root / (t.name + ".indices.npy")).string(), reference->indices);
        files.push_back(fmt::format("\"reference\":\"{}\",\"indices\":\"{}.indices.npy\"", f, t.name));
      } else {
        write_npy_f64((root / f).string(), t.lengths, reference->output);
        files.push_back(fmt::format("\"reference\":\"{}\"", f));
      }
    }
    if (reference) {
      for (const auto& [ti, value] : reference->extra) {
        if (static_cast<std::size_t>(ti) != i) continue;
        const std::string f = t.name + ".ref.npy";
        write_npy_f64((root / f).string(), value.lengths, value.data);
        files.push_back(fmt::format("\"reference\":\"{}\"", f));
      }
    }
    tensors += fmt::format(
        "{}\n    {{\"name\":\"{}\",\"role\":\"{}\",\"op\":{},\"access\":\"{}\",\"dtype\":\"{}\",\"layout\":\"{}\","
        "\"lengths\":{},\"strides\":{},\"files\":{{{}}}}}",
        i ? "," : "", json_escape(t.name), role_name(t.role), t.op, access_name(t.access), ref::name(t.dtype),
        t.layout == ref::Layout::nhwc ? "nhwc" : "nchw", json_list(t.lengths), json_list(t.strides),
        fmt::join(files, ","));
  }
  const std::string manifest = fmt::format(
      "{{\n  \"case\":\"{}\",\n  \"describe\":\"{}\",\n  \"status\":\"{}\",\n  \"reason\":\"{}\",\n"
      "  \"order\":\"logical N,C,[D,]H,W (row-major) whatever the layout\",\n  \"record\":{},\n"
      "  \"tensors\":[{}\n  ]\n}}\n",
      json_escape(c.name), json_escape(record.ops), status_name(record.status), json_escape(record.reason),
      json_object(record), tensors);
  std::ofstream f(root / "manifest.json");
  f << manifest;
  if (!f) throw std::runtime_error(fmt::format("--dump: cannot write {}", (root / "manifest.json").string()));
  return root.string();
}

}  // namespace hipfuse::driver
