#include "report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hipfuse::driver {

const char* status_name(Status s) {
  switch (s) {
    case Status::passed: return "PASSED";
    case Status::failed: return "FAILED";
    case Status::unsupported: return "UNSUPPORTED";
    case Status::mistrusted: return "MISTRUSTED";
    case Status::compile_error: return "COMPILE_ERROR";
    case Status::executed: return "EXECUTED";
  }
  return "?";
}

std::optional<Format> parse_format(std::string_view t) {
  if (t == "table") return Format::table;
  if (t == "csv") return Format::csv;
  if (t == "json") return Format::json;
  if (t == "jsonl") return Format::jsonl;
  return std::nullopt;
}

std::string csv_escape(std::string_view f) {
  if (f.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(f);
  std::string out = "\"";
  for (char ch : f) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + '"';
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (u < 0x20) out += fmt::format("\\u{:04x}", u);
        else out += ch;  // UTF-8 passes through
    }
  }
  return out;
}

std::string json_number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "null";
  return fmt::format("{}", *v);
}

namespace {

std::string opt_text(std::optional<double> v, const char* spec = "{}") {
  return v && std::isfinite(*v) ? fmt::format(fmt::runtime(spec), *v) : std::string();
}
template <class T>
std::string opt_int(std::optional<T> v) {
  return v ? fmt::format("{}", *v) : std::string();
}
std::string opt_bool(std::optional<bool> v) { return v ? (*v ? "true" : "false") : ""; }
std::string json_str(std::string_view s) { return "\"" + json_escape(s) + "\""; }
std::string json_opt_bool(std::optional<bool> v) { return v ? (*v ? "true" : "false") : "null"; }
std::string json_opt_int(std::optional<int> v) { return v ? std::to_string(*v) : "null"; }

std::string checks_compact(const Record& r) {
  std::string out;
  for (const CheckResult& c : r.checks) {
    if (!out.empty()) out += ';';
    out += fmt::format("{}={}({:.3g})", c.tensor, c.verdict, c.nrms);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> cols{
      "name",      "status",    "reason",      "file",         "line",       "dtype",      "layout",
      "shape",     "output_shape", "ops",      "solver",       "compile_ms", "cache_hit",  "kernels",
      "warmup",    "iters",     "buffer_sets", "min_us",       "median_us",  "max_us",     "mean_us",
      "gap_us",    "median_us_back_to_back", "execute_host_us", "bytes",     "flops",     "gbps",        "tflops",       "verify",     "nrms",       "max_abs",
      "tolerance", "checks",    "baseline_us", "baseline_kernels", "speedup", "baseline_note", "device",
      "repro"};
  return cols;
}

std::string csv_header(const Record& r) {
  std::string header;
  for (const std::string& c : csv_columns()) header += (header.empty() ? "" : ",") + csv_escape(c);
  for (const auto& [key, value] : r.tags) header += "," + csv_escape(key);
  return header;
}

std::string csv_row(const Record& r) {
  std::vector<std::string> fields{
      r.name,
      status_name(r.status),
      r.reason,
      r.file,
      std::to_string(r.line),
      r.dtype,
      r.layout,
      r.shape,
      r.output_shape,
      r.ops,
      r.solver,
      opt_text(r.compile_ms, "{:.3f}"),
      opt_bool(r.cache_hit),
      opt_int(r.kernels),
      std::to_string(r.warmup),
      std::to_string(r.iters),
      std::to_string(r.buffer_sets),
      opt_text(r.min_us, "{:.3f}"),
      opt_text(r.median_us, "{:.3f}"),
      opt_text(r.max_us, "{:.3f}"),
      opt_text(r.mean_us, "{:.3f}"),
      fmt::format("{}", r.gap_us),
      opt_text(r.median_us_back_to_back, "{:.3f}"),
      opt_text(r.execute_host_us, "{:.3f}"),
      fmt::format("{}", r.bytes),
      fmt::format("{}", r.flops),
      opt_text(r.gbps, "{:.2f}"),
      opt_text(r.tflops, "{:.4f}"),
      r.verify,
      opt_text(r.nrms, "{:.3e}"),
      opt_text(r.max_abs, "{:.3e}"),
      opt_text(r.tolerance, "{:.3e}"),
      checks_compact(r),
      opt_text(r.baseline_us, "{:.3f}"),
      opt_int(r.baseline_kernels),
      opt_text(r.speedup, "{:.3f}"),
      r.baseline_note,
      r.device,
      r.repro,
  };
  for (const auto& [key, value] : r.tags) fields.push_back(value);
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) row += ',';
    row += csv_escape(fields[i]);
  }
  return row;
}

std::string json_object(const Record& r) {
  std::string checks = "[";
  for (const CheckResult& c : r.checks) {
    if (checks.size() > 1) checks += ',';
    checks += fmt::format(
        "{{\"tensor\":{},\"verdict\":{},\"nrms\":{},\"max_abs\":{},\"tolerance\":{},\"checked\":{},"
        "\"unwritten\":{},\"message\":{}}}",
        json_str(c.tensor), json_str(c.verdict), json_number(c.nrms), json_number(c.max_abs),
        json_number(c.tolerance), c.checked, c.unwritten, json_str(c.message));
  }
  checks += ']';
  std::string o = "{";
  auto field = [&](const char* key, const std::string& value) {
    if (o.size() > 1) o += ',';
    o += fmt::format("\"{}\":{}", key, value);
  };
  field("name", json_str(r.name));
  field("status", json_str(status_name(r.status)));
  field("reason", json_str(r.reason));
  field("file", json_str(r.file));
  field("line", std::to_string(r.line));
  field("dtype", json_str(r.dtype));
  field("layout", json_str(r.layout));
  field("shape", json_str(r.shape));
  field("output_shape", json_str(r.output_shape));
  field("ops", json_str(r.ops));
  field("solver", json_str(r.solver));
  field("compile_ms", json_number(r.compile_ms));
  field("cache_hit", json_opt_bool(r.cache_hit));
  field("kernels", json_opt_int(r.kernels));
  field("warmup", std::to_string(r.warmup));
  field("iters", std::to_string(r.iters));
  field("buffer_sets", std::to_string(r.buffer_sets));
  field("min_us", json_number(r.min_us));
  field("median_us", json_number(r.median_us));
  field("max_us", json_number(r.max_us));
  field("mean_us", json_number(r.mean_us));
  field("gap_us", json_number(r.gap_us));
  field("median_us_back_to_back", json_number(r.median_us_back_to_back));
  field("execute_host_us", json_number(r.execute_host_us));
  field("bytes", json_number(r.bytes));
  field("flops", json_number(r.flops));
  field("gbps", json_number(r.gbps));
  field("tflops", json_number(r.tflops));
  field("verify", json_str(r.verify));
  field("nrms", json_number(r.nrms));
  field("max_abs", json_number(r.max_abs));
  field("tolerance", json_number(r.tolerance));
  field("checks", checks);
  field("baseline_us", json_number(r.baseline_us));
  field("baseline_kernels", json_opt_int(r.baseline_kernels));
  field("speedup", json_number(r.speedup));
  field("baseline_note", json_str(r.baseline_note));
  field("device", json_str(r.device));
  field("repro", json_str(r.repro));
  std::string tags = "{";
  for (const auto& [key, value] : r.tags) tags += fmt::format("{}{}:{}", tags.size() > 1 ? "," : "", json_str(key), json_str(value));
  field("tags", tags + "}");
  return o + "}";
}

std::string status_line(const Record& r) {
  std::string line = fmt::format("{:<13} {}", status_name(r.status), r.name);
  if (r.median_us) {
    line += fmt::format("  median {:.2f} us (min {:.2f}, max {:.2f})", *r.median_us, r.min_us.value_or(0),
                        r.max_us.value_or(0));
    if (r.gbps) line += fmt::format("  {:.1f} GB/s", *r.gbps);
    if (r.tflops && r.flops > 0) line += fmt::format("  {:.3f} TFLOP/s", *r.tflops);
  }
  if (r.kernels) line += fmt::format("  {} kernel{}", *r.kernels, *r.kernels == 1 ? "" : "s");
  if (r.compile_ms)
    line += fmt::format("  compile {:.1f} ms{}", *r.compile_ms,
                        r.cache_hit ? (*r.cache_hit ? " (cache hit)" : " (cache miss)") : "");
  if (r.nrms) line += fmt::format("  nrms {:.2e}", *r.nrms);
  if (r.max_abs) line += fmt::format("  max_abs {:.2e}", *r.max_abs);
  if (r.speedup)
    line += fmt::format("  unfused {:.2f} us, {} kernels: {:.2f}x", r.baseline_us.value_or(0),
                        r.baseline_kernels.value_or(0), *r.speedup);
  if (!r.reason.empty()) {
    if (r.status == Status::unsupported) line += fmt::format("  ({})", r.reason);
    else line += fmt::format("  : {}", r.reason);
  }
  return line;
}

int Counts::total() const {
  int t = 0;
  for (int n : by_status) t += n;
  return t;
}

std::string summary_line(const Counts& c) {
  std::string s = fmt::format("{} passed, {} failed", c[Status::passed], c[Status::failed]);
  if (c[Status::unsupported]) s += fmt::format(", {} unsupported", c[Status::unsupported]);
  if (c[Status::mistrusted]) s += fmt::format(", {} mistrusted", c[Status::mistrusted]);
  if (c[Status::compile_error])
    s += fmt::format(", {} compile error{}", c[Status::compile_error], c[Status::compile_error] == 1 ? "" : "s");
  if (c[Status::executed]) s += fmt::format(", {} executed", c[Status::executed]);
  return s;
}

int exit_code(const Counts& c, bool strict) {
  if (c[Status::failed] || c[Status::compile_error]) return 1;
  if (strict && (c[Status::unsupported] || c[Status::mistrusted])) return 1;
  return 0;
}

Reporter::Reporter(Format format, std::FILE* records, std::FILE* human, int verbosity)
    : format_(format), records_(records), human_(human), verbosity_(verbosity) {}

void Reporter::add(const Record& r) {
  ++counts_[r.status];
  if (human_) {
    fmt::print(human_, "{}\n", status_line(r));
    // Failures always carry their repro; with -v every case printed it before running.
    const bool show_repro = r.status != Status::passed && r.status != Status::executed;
    if (show_repro && !r.repro.empty()) fmt::print(human_, "  repro: {}\n", r.repro);
    if (verbosity_ > 0) {
      for (const CheckResult& c : r.checks)
        fmt::print(human_, "  check {}: {} {}\n", c.tensor, c.verdict, c.message);
      if (!r.solver.empty()) fmt::print(human_, "  solver: {}\n", r.solver);
      if (!r.baseline_note.empty()) fmt::print(human_, "  unfused baseline: {}\n", r.baseline_note);
    }
    std::fflush(human_);
  }
  if (!records_) return;
  switch (format_) {
    case Format::csv:
      if (!header_written_) {
        fmt::print(records_, "{}\n", csv_header(r));
        header_written_ = true;
      }
      fmt::print(records_, "{}\n", csv_row(r));
      std::fflush(records_);
      break;
    case Format::jsonl:
      fmt::print(records_, "{}\n", json_object(r));
      std::fflush(records_);
      break;
    case Format::json:
    case Format::table:
      kept_.push_back(r);
      break;
  }
}

namespace {

void print_table(std::FILE* out, const std::vector<Record>& records) {
  const std::vector<std::string> head{"status", "name", "kernels", "compile ms", "median us", "GB/s", "TFLOP/s",
                                      "nrms",   "unfused us", "speedup"};
  std::vector<std::vector<std::string>> rows;
  for (const Record& r : records) {
    rows.push_back({status_name(r.status), r.name, opt_int(r.kernels), opt_text(r.compile_ms, "{:.1f}"),
                    opt_text(r.median_us, "{:.2f}"), opt_text(r.gbps, "{:.1f}"), opt_text(r.tflops, "{:.3f}"),
                    opt_text(r.nrms, "{:.2e}"), opt_text(r.baseline_us, "{:.2f}"), opt_text(r.speedup, "{:.2f}x")});
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool left = i < 2;
      line += left ? fmt::format("{:<{}}", row[i], width[i]) : fmt::format("{:>{}}", row[i], width[i]);
      if (i + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    fmt::print(out, "{}\n", line);
  };
  print_row(head);
  for (const auto& row : rows) print_row(row);
}

}  // namespace

Cell text_cell(std::string s) { return Cell{std::move(s), false}; }
Cell number_cell(std::optional<double> v) { return Cell{json_number(v), true}; }
Cell bool_cell(std::optional<bool> v) { return Cell{v ? (*v ? "true" : "false") : "null", true}; }

void write_rows(std::FILE* out, Format format, const std::string& name, const std::vector<std::string>& columns,
                const std::vector<std::vector<Cell>>& rows) {
  auto object = [&](const std::vector<Cell>& row) {
    std::string o = "{";
    for (std::size_t i = 0; i < columns.size() && i < row.size(); ++i)
      o += fmt::format("{}\"{}\":{}", i ? "," : "", json_escape(columns[i]),
                       row[i].raw_json ? row[i].text : json_str(row[i].text));
    return o + "}";
  };
  auto plain = [](const Cell& c) { return c.raw_json && c.text == "null" ? std::string() : c.text; };
  switch (format) {
    case Format::csv: {
      std::string header;
      for (std::size_t i = 0; i < columns.size(); ++i) header += (i ? "," : "") + csv_escape(columns[i]);
      fmt::print(out, "{}\n", header);
      for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + csv_escape(plain(row[i]));
        fmt::print(out, "{}\n", line);
      }
      break;
    }
    case Format::jsonl:
      for (const auto& row : rows) fmt::print(out, "{}\n", object(row));
      break;
    case Format::json:
      fmt::print(out, "{{\"{}\":[", json_escape(name));
      for (std::size_t i = 0; i < rows.size(); ++i) fmt::print(out, "{}\n{}", i ? "," : "", object(rows[i]));
      fmt::print(out, "\n]}}\n");
      break;
    case Format::table: {
      std::vector<std::size_t> width(columns.size());
      for (std::size_t i = 0; i < columns.size(); ++i) width[i] = columns[i].size();
      for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], plain(row[i]).size());
      auto line = [&](const std::vector<std::string>& cells) {
        std::string l;
        for (std::size_t i = 0; i < cells.size(); ++i)
          l += fmt::format("{:<{}}{}", cells[i], i + 1 < cells.size() ? width[i] : 0, i + 1 < cells.size() ? "  " : "");
        while (!l.empty() && l.back() == ' ') l.pop_back();
        fmt::print(out, "{}\n", l);
      };
      line(columns);
      for (const auto& row : rows) {
        std::vector<std::string> cells;
        for (const Cell& c : row) cells.push_back(plain(c));
        line(cells);
      }
      break;
    }
  }
  std::fflush(out);
}

Counts Reporter::finish() {
  if (records_) {
    if (format_ == Format::json) {
      fmt::print(records_, "{{\"records\":[");
      for (std::size_t i = 0; i < kept_.size(); ++i) fmt::print(records_, "{}\n{}", i ? "," : "", json_object(kept_[i]));
      fmt::print(records_, "\n],\"summary\":{{");
      for (std::size_t i = 0; i < kAllStatuses.size(); ++i)
        fmt::print(records_, "{}\"{}\":{}", i ? "," : "", status_name(kAllStatuses[i]), counts_.by_status[i]);
      fmt::print(records_, "}}}}\n");
    } else if (format_ == Format::table && (kept_.size() > 1 || records_ != human_)) {
      if (records_ == human_) fmt::print(records_, "\n");
      print_table(records_, kept_);
    }
    std::fflush(records_);
  }
  if (human_) {
    fmt::print(human_, "{}\n", summary_line(counts_));
    std::fflush(human_);
  }
  return counts_;
}

}  // namespace hipfuse::driver
