// fusiondriver run: per case, create + compile the plan (timed apart), fill fresh inputs, poison
// the outputs, execute once and verify against the CPU reference, then warm up and time
// executions with GPU events (rotating buffer sets so that L2 does not flatter), check the guard
// regions, and optionally run the unfused baseline. One status line per case, then a summary.

#include <cmath>
#include <future>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include <hipfuse/reference/compare.h>

#include "commands.h"
#include "device_buffers.h"
#include "dump.h"
#include "gpu.h"
#include "host_data.h"
#include "metrics.h"
#include "plan_builder.h"
#include "problem.h"
#include "progress.h"
#include "report.h"
#include "spec.h"
#include "timing.h"
#include "verify.h"

namespace hipfuse::driver {

namespace {

struct Context {
  const Options& options;
  DeviceProperties device;
  Stream stream;
  Handle handle;
  explicit Context(const Options& o, DeviceProperties d) : options(o), device(std::move(d)), stream(), handle(stream.get()) {}
};

// One copy of every tensor of a case on the device.
struct BufferSet {
  std::vector<DeviceBuffer> buffers;  // by Problem index
  DevicePointers pointers;
  void* input() const { return pointers[0]; }
  void* output() const { return pointers[1]; }
};

BufferSet allocate_set(const Problem& p, int set) {
  BufferSet s;
  for (const TensorInfo& t : p.tensors) {
    s.buffers.emplace_back(t.storage_bytes(), t.dtype, set == 0 ? t.name : fmt::format("{} (set {})", t.name, set));
    s.pointers.push_back(s.buffers.back().data());
  }
  return s;
}

Record base_record(const Case& c, const Context& ctx) {
  Record r;
  r.name = c.name;
  r.file = c.file;
  r.line = c.line;
  r.dtype = std::string(kDTypeNames.at(static_cast<std::size_t>(c.dtype)));
  r.layout = std::string(kLayoutNames.at(static_cast<std::size_t>(c.layout)));
  r.shape = shape_string(c.input);
  r.ops = describe(c);
  r.warmup = c.timing.warmup;
  r.iters = c.timing.iters;
  r.repro = repro_command(c);
  r.device = fmt::format("{}: {} ({})", ctx.device.ordinal, ctx.device.name, ctx.device.arch);
  for (const std::string& tag : ctx.options.tags) {
    const std::size_t eq = tag.find('=');
    r.tags.emplace_back(tag.substr(0, eq), tag.substr(eq + 1));
  }
  return r;
}

void append_reason(Record& r, const std::string& why) {
  if (why.empty()) return;
  r.reason += (r.reason.empty() ? "" : "; ") + why;
}

// Everything of one case that must outlive the run for --dump.
struct CaseState {
  std::optional<Problem> problem;
  std::optional<HostData> host;
  std::vector<std::vector<std::uint8_t>> gpu;  // downloaded written tensors, by Problem index
  std::optional<Reference> reference;
};

// The unfused baseline: one plan per stage, intermediates in device memory in the data type.
void run_baseline(Context& ctx, const Case& c, const Problem& p, std::vector<BufferSet>& sets, CaseState& st,
                  Record& r) {
  const auto stages = unfused_stages(c);
  if (stages.size() < 2) {
    r.baseline_note = "a single op: nothing to unfuse";
    return;
  }
  std::vector<std::unique_ptr<FusionPlan>> plans;
  int kernels = 0;
  for (const auto& [first, last] : stages) {
    try {
      plans.push_back(std::make_unique<FusionPlan>(c, p, first, last));
      plans.back()->compile(ctx.handle.get());
      kernels += plans.back()->info().kernels;
    } catch (const ApiError& e) {
      r.baseline_note = fmt::format("unfused {} {}: {}", stage_description(c, first, last),
                                    is_unsupported(e.status) ? "unsupported" : "failed to compile", e.what());
      return;
    }
  }
  // Intermediates: per set, the output of every stage but the last.
  std::vector<std::vector<DeviceBuffer>> inter(sets.size());
  std::vector<std::vector<std::unique_ptr<OperatorArgs>>> args(sets.size());
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (std::size_t j = 0; j + 1 < stages.size(); ++j) {
      const TensorInfo t = data_tensor_info(c, p, stages[j].second);
      inter[s].emplace_back(t.storage_bytes(), t.dtype, fmt::format("unfused {} (set {})", t.name, s));
    }
    for (const auto& plan : plans) {
      args[s].push_back(std::make_unique<OperatorArgs>());
      plan->bind(args[s].back()->get(), sets[s].pointers);
    }
  }
  const auto body = [&](int i) {
    const std::size_t s = static_cast<std::size_t>(i) % sets.size();
    for (std::size_t j = 0; j < plans.size(); ++j) {
      const void* in = j == 0 ? sets[s].input() : inter[s][j - 1].data();
      void* out = j + 1 == plans.size() ? sets[s].output() : inter[s][j].data();
      plans[j]->execute(ctx.handle.get(), in, out, args[s][j]->get());
    }
  };
  // One checked run: the unfused result must agree with the fused one (both computed on the
  // GPU; the unfused one rounds every intermediate to the data type, hence 4x the tolerance).
  sets[0].buffers[1].poison();
  body(0);
  ctx.stream.synchronize();
  if (!st.gpu.empty() && !st.gpu[1].empty()) {
    std::vector<std::uint8_t> bytes(p.output().storage_bytes());
    sets[0].buffers[1].download(bytes.data(), bytes.size());
    const std::vector<double> unfused = from_bytes(bytes, p.output()).data;
    const std::vector<double> fused = from_bytes(st.gpu[1], p.output()).data;
    ref::Tolerance tol = tolerance_for(c, p, 1);
    tol.nrms *= 4;
    // Where the reference has two legitimate values, fused and unfused may each take either.
    std::vector<ref::Alternate> either;
    if (st.reference && !st.reference->sampled) {
      for (const ref::Alternate& a : st.reference->alternates) {
        const double step = a.value - st.reference->output[static_cast<std::size_t>(a.index)];
        const double f = fused[static_cast<std::size_t>(a.index)];
        either.push_back({a.index, f + step});
        either.push_back({a.index, f - step});
      }
    }
    const ref::Verdict v =
        ref::compare(unfused.data(), fused.data(), static_cast<int64_t>(fused.size()), tol, either);
    const int64_t unwritten = count_unwritten(bytes, p.output());
    if (unwritten > 0) r.baseline_note = fmt::format("unfused output: {} element(s) never written", unwritten);
    else if (v.kind == ref::Verdict::failed) r.baseline_note = "unfused output differs from the fused one: " + v.message;
  }
  const TimingStats t =
      summarize(time_on_stream(ctx.stream.get(), c.timing.warmup, c.timing.iters, ctx.options.gap_us, body));
  r.baseline_us = t.median_us;
  r.baseline_kernels = kernels;
  if (r.median_us && *r.median_us > 0) r.speedup = t.median_us / *r.median_us;
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (const DeviceBuffer& b : inter[s])
      if (const std::string g = b.check_guards(); !g.empty()) append_reason(r, "unfused: " + g);
}

void run_case(Context& ctx, const Case& c, CaseState& st, Record& r) {
  const Options& o = ctx.options;
  // The problem and its plan.
  try {
    st.problem = make_problem(c);
  } catch (const std::exception& e) {
    r.status = Status::failed;
    r.reason = fmt::format("problem: {}", e.what());
    return;
  }
  const Problem& p = *st.problem;
  r.output_shape = shape_string(p.output().lengths);
  const Work work = plan_work(c, p);
  r.bytes = work.bytes;
  r.flops = work.flops;

  std::unique_ptr<FusionPlan> plan;
  try {
    plan = std::make_unique<FusionPlan>(c, p, 0, c.ops.size());
    plan->compile(ctx.handle.get());
  } catch (const ApiError& e) {
    r.status = is_unsupported(e.status) ? Status::unsupported : Status::compile_error;
    r.reason = is_unsupported(e.status) ? e.message : e.what();
    if (plan) {
      if (const PlanInfo info = plan->info(); info.compile_ms > 0) r.compile_ms = info.compile_ms;
    }
    return;
  } catch (const std::invalid_argument& e) {
    r.status = Status::unsupported;
    r.reason = e.what();
    return;
  }
  const PlanInfo info = plan->info();
  r.solver = info.solver;
  r.kernels = info.kernels;
  r.compile_ms = info.compile_ms;
  r.cache_hit = info.cache_hit;

  // Host data, and the reference computed on the CPU while the GPU works.
  try {
    st.host = make_host_data(c, p);
  } catch (const std::exception& e) {
    r.status = Status::failed;
    r.reason = fmt::format("host data: {}", e.what());
    return;
  }
  const HostData& h = *st.host;
  const VerifyPlan vp = choose_verify(c, p);
  r.verify = vp.label(p.output().elements());
  std::future<Reference> reference;
  if (vp.mode != VerifyPlan::Mode::off)
    reference = std::async(std::launch::async, [&c, &p, &h, vp] { return compute_reference(c, p, h, vp); });

  // Buffers: set 0 from the host data; the other sets are device copies of it.
  std::vector<BufferSet> sets;
  std::vector<std::vector<std::uint8_t>> images(p.tensors.size());
  for (std::size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].access != Access::write) images[i] = to_bytes(h.values[i], p.tensors[i]);
  sets.push_back(allocate_set(p, 0));
  for (std::size_t i = 0; i < p.tensors.size(); ++i)
    if (!images[i].empty()) sets[0].buffers[i].upload(images[i].data(), images[i].size());

  // The verified run: outputs poisoned, one execution, everything it wrote downloaded.
  OperatorArgs args0;
  plan->bind(args0.get(), sets[0].pointers);
  for (std::size_t i = 0; i < p.tensors.size(); ++i)
    if (p.tensors[i].access == Access::write) sets[0].buffers[i].poison();
  plan->execute(ctx.handle.get(), sets[0].input(), sets[0].output(), args0.get());
  ctx.stream.synchronize();
  st.gpu.assign(p.tensors.size(), {});
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    if (!p.tensors[i].is_output()) continue;
    st.gpu[i].resize(p.tensors[i].storage_bytes());
    sets[0].buffers[i].download(st.gpu[i].data(), st.gpu[i].size());
  }
  std::set<std::string> guard_errors;  // checked after the verified run and after timing
  const auto check_guards = [&guard_errors](const BufferSet& set) {
    for (const DeviceBuffer& b : set.buffers)
      if (std::string g = b.check_guards(); !g.empty()) guard_errors.insert(std::move(g));
  };
  check_guards(sets[0]);

  // Timing over rotated buffer sets.
  const int nsets = buffer_sets_for(p.total_bytes(), ctx.device.l2_bytes, o.buffer_sets);
  r.buffer_sets = nsets;
  for (int s = 1; s < nsets; ++s) {
    sets.push_back(allocate_set(p, s));
    for (std::size_t i = 0; i < p.tensors.size(); ++i)
      if (p.tensors[i].access != Access::write) sets.back().buffers[i].copy_from(sets[0].buffers[i]);
  }
  std::vector<std::unique_ptr<OperatorArgs>> args;
  for (int s = 1; s < nsets; ++s) {
    args.push_back(std::make_unique<OperatorArgs>());
    plan->bind(args.back()->get(), sets[static_cast<std::size_t>(s)].pointers);
  }
  const auto body = [&](int i) {
    const int s = i % nsets;
    const BufferSet& set = sets[static_cast<std::size_t>(s)];
    plan->execute(ctx.handle.get(), set.input(), set.output(), s == 0 ? args0.get() : args[static_cast<std::size_t>(s - 1)]->get());
  };
  const TimingStats t = summarize(time_on_stream(ctx.stream.get(), c.timing.warmup, c.timing.iters, o.gap_us, body));
  r.gap_us = o.gap_us;
  if (o.gap_us > 0 && t.samples > 0)
    r.median_us_back_to_back = summarize(time_on_stream(ctx.stream.get(), 0, c.timing.iters, 0, body)).median_us;
  if (t.samples > 0) {
    r.min_us = t.min_us;
    r.median_us = t.median_us;
    r.max_us = t.max_us;
    r.mean_us = t.mean_us;
    r.gbps = gb_per_s(work.bytes, t.median_us);
    r.tflops = tflop_per_s(work.flops, t.median_us);
  }
  if (t.samples > 0) r.execute_host_us = host_us_per_call(ctx.stream.get(), 50, 5, body);
  for (const BufferSet& set : sets) check_guards(set);

  // Verdict.
  if (vp.mode == VerifyPlan::Mode::off) {
    std::string why;
    for (std::size_t i = 0; i < p.tensors.size(); ++i) {
      if (!p.tensors[i].is_output() || p.tensors[i].access == Access::read_write) continue;
      if (const int64_t n = count_unwritten(st.gpu[i], p.tensors[i]); n > 0)
        why += fmt::format("{}{}: {} element(s) never written", why.empty() ? "" : "; ", p.tensors[i].name, n);
    }
    r.status = why.empty() ? Status::executed : Status::failed;
    r.reason = why;
  } else {
    st.reference = reference.get();
    r.checks = check_outputs(c, p, *st.reference, st.gpu);
    std::string why;
    r.status = judge(r.checks, &why);
    r.reason = why;
    r.nrms = r.checks.front().nrms;
    r.max_abs = r.checks.front().max_abs;
    r.tolerance = r.checks.front().tolerance;
  }
  if (!vp.note.empty()) r.verify += " (" + vp.note + ")";
  if (!guard_errors.empty()) {
    r.status = Status::failed;
    append_reason(r, fmt::format("guard region: {}", fmt::join(guard_errors, "; ")));
  }

  if (o.baseline == "unfused") run_baseline(ctx, c, p, sets, st, r);
}

}  // namespace

int command_run(const Options& o) {
  quiet_library_logs(o.verbosity);
  // 1. Every spec is validated before anything else, with or without a GPU.
  const std::vector<Case> cases = load_cases(o);
  const bool machine = o.format != "table";
  OutputFile out(o.out);
  // Status lines go to stdout unless the records do.
  std::FILE* human = machine && out.is_stdout() ? stderr : stdout;
  if (cases.empty()) {
    fmt::print(human, "no cases selected{}\n", o.filter.empty() ? "" : fmt::format(" (--filter '{}')", o.filter));
    Reporter(*parse_format(o.format), out.get(), human, o.verbosity).finish();
    return kExitOk;
  }
  // 2. The GPU, before any work.
  if (const auto why = gpu_unavailable_reason(o.device)) {
    print_error(*why);
    return kExitNoDevice;
  }
  std::unique_ptr<Context> ctx;
  try {
    ctx = std::make_unique<Context>(o, select_device(o.device));
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitNoDevice;
  }

  Reporter reporter(*parse_format(o.format), out.get(), human, o.verbosity);
  Progress progress(stdout, static_cast<int>(cases.size()),
                    o.progress && cases.size() > 1 && is_terminal(stdout) && human == stdout);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (o.verbosity > 0) {
      progress.clear();
      fmt::print(human, "running {}: {}\n  repro: {}\n", c.name, describe(c), repro_command(c));
      std::fflush(human);
    }
    progress.start(static_cast<int>(i), c.name);
    Record r = base_record(c, *ctx);
    CaseState st;
    try {
      run_case(*ctx, c, st, r);
    } catch (const OutOfDeviceMemory& e) {  // the case does not fit: not a defect of the plan
      r.status = Status::unsupported;
      append_reason(r, fmt::format("out of device memory ({:.1f} GiB per buffer set): {}",
                                   st.problem ? static_cast<double>(st.problem->total_bytes()) / (1u << 30) : 0.0,
                                   e.what()));
    } catch (const std::bad_alloc&) {
      r.status = Status::unsupported;
      append_reason(r, "out of host memory");
    } catch (const std::exception& e) {  // HIP or API failures while running
      r.status = Status::failed;
      append_reason(r, e.what());
    }
    if (!o.dump_dir.empty() && st.problem && st.host &&
        (o.dump_when == "all" || (r.status != Status::passed && r.status != Status::executed))) {
      try {
        const std::string dir = dump_case(o.dump_dir, static_cast<int>(i), c, *st.problem, *st.host, st.gpu,
                                          st.reference ? &*st.reference : nullptr, r);
        if (o.verbosity > 0) fmt::print(human, "  dumped to {}\n", dir);
      } catch (const std::exception& e) {
        append_reason(r, e.what());
      }
    }
    progress.clear();
    reporter.add(r);
  }
  progress.clear();
  const Counts counts = reporter.finish();
  return exit_code(counts, o.strict);
}

}  // namespace hipfuse::driver
