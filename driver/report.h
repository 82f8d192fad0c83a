#pragma once
// Results: one Record per case, printed as a status line for people and written as
// table / csv / json / jsonl for machines, then a summary line "N passed, M failed[, ...]".

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hipfuse::driver {

// The fixed status vocabulary. EXECUTED: ran with verification off (not a pass, not a failure).
enum class Status { passed, failed, unsupported, mistrusted, compile_error, executed };
inline constexpr std::array<Status, 6> kAllStatuses{Status::passed,     Status::failed,        Status::unsupported,
                                                    Status::mistrusted, Status::compile_error, Status::executed};
const char* status_name(Status s);  // "PASSED", "FAILED", "UNSUPPORTED", "MISTRUSTED", "COMPILE_ERROR", "EXECUTED"

enum class Format { table, csv, json, jsonl };
std::optional<Format> parse_format(std::string_view text);

// One check of one output tensor (the plan output, BN statistics, dScale/dBias).
struct CheckResult {
  std::string tensor;    // "output", "op0.saved_mean", ...
  std::string verdict;   // "PASSED", "FAILED", "MISTRUSTED"
  double nrms = 0;
  double max_abs = 0;
  double tolerance = 0;  // the nrms bound
  int64_t checked = 0;   // elements compared
  int64_t unwritten = 0; // elements still holding the poison pattern
  std::string message;   // the reference's one-line explanation
};

struct Record {
  // What the case is.
  std::string name;
  std::string file;
  int line = 0;
  std::string dtype, layout;
  std::string shape;         // input lengths "64x64x56x56"
  std::string output_shape;
  std::string ops;           // describe(case)
  // How it went.
  Status status = Status::failed;
  std::string reason;        // why not PASSED (empty when passed)
  std::string solver;
  std::optional<double> compile_ms;
  std::optional<bool> cache_hit;
  std::optional<int> kernels;
  // Timing of the fused plan (one execute between two events).
  int warmup = 0, iters = 0, buffer_sets = 0;
  std::optional<double> min_us, median_us, max_us, mean_us;
  double gap_us = 0;                       // --gap-us: GPU idle time before each timed execution
  std::optional<double> median_us_back_to_back;  // with gap_us > 0: the median of the same loop without gaps
  std::optional<double> execute_host_us;  // CPU time of one Execute call (launch only, no wait)
  double bytes = 0, flops = 0;
  std::optional<double> gbps, tflops;  // from the median
  // Verification.
  std::string verify;        // "cpu", "sample (N of M)", "off"
  std::optional<double> nrms, max_abs, tolerance;
  std::vector<CheckResult> checks;
  // --baseline unfused.
  std::optional<double> baseline_us;   // median of the unfused sequence
  std::optional<int> baseline_kernels;
  std::optional<double> speedup;       // baseline_us / median_us
  std::string baseline_note;           // why no baseline, or a disagreement with the fused output
  std::string repro;
  std::string device;
  std::vector<std::pair<std::string, std::string>> tags;  // --tag KEY=VALUE: extra constant columns
};

// Escaping.
std::string csv_escape(std::string_view field);   // RFC 4180: quoted when it holds , " CR or LF
std::string json_escape(std::string_view text);   // the body of a JSON string, without quotes
std::string json_number(std::optional<double> v); // "null" for none/NaN/inf; shortest round-trip text

// The CSV column names, in order, and one record as a CSV row (no newline). The record's tags
// follow as extra columns (csv_header(r) names them).
const std::vector<std::string>& csv_columns();
std::string csv_header(const Record& r);
std::string csv_row(const Record& r);
// One record as a JSON object on one line.
std::string json_object(const Record& r);

// The human status line, e.g.
// "PASSED      conv/fp16  median 41.2 us (min 40.9, max 43.0)  1875 GB/s  12.3 TFLOP/s  nrms 2.1e-04  max_abs 3.1e-02".
std::string status_line(const Record& r);

struct Counts {
  std::array<int, kAllStatuses.size()> by_status{};
  int& operator[](Status s) { return by_status[static_cast<std::size_t>(s)]; }
  int operator[](Status s) const { return by_status[static_cast<std::size_t>(s)]; }
  int total() const;
};
// "N passed, M failed" then ", K unsupported", ", K mistrusted", ", K compile errors", ", K executed"
// for the non-zero ones.
std::string summary_line(const Counts& c);
// The process exit code: 1 when a case FAILED or hit a COMPILE_ERROR (or, with `strict`, was
// UNSUPPORTED or MISTRUSTED), else 0.
int exit_code(const Counts& c, bool strict);

// Generic rows for the commands whose records are not Records (compile, list, support).
struct Cell {
  std::string text;
  bool raw_json = false;  // text is a JSON literal (number, true/false, null), not a string
};
Cell text_cell(std::string s);
Cell number_cell(std::optional<double> v);
Cell bool_cell(std::optional<bool> v);
// csv: header + rows; jsonl: one object per row; json: {"<name>": [objects]}; table: aligned columns.
void write_rows(std::FILE* out, Format format, const std::string& name, const std::vector<std::string>& columns,
                const std::vector<std::vector<Cell>>& rows);

// Writes records as they come and the summary at the end.
//  - `records` receives the machine-readable form (csv/json/jsonl), or the final table for
//    Format::table; null for none.
//  - `human` receives the status lines (and repro lines), then the summary line.
class Reporter {
 public:
  Reporter(Format format, std::FILE* records, std::FILE* human, int verbosity);
  void add(const Record& r);
  Counts finish();  // table/json bodies, then the summary line; returns the counts
  const Counts& counts() const { return counts_; }

 private:
  Format format_;
  std::FILE* records_;
  std::FILE* human_;
  int verbosity_;
  Counts counts_;
  std::vector<Record> kept_;  // for table and json, written at the end
  bool header_written_ = false;
};

}  // namespace hipfuse::driver
