#!/usr/bin/env python3
"""Joins the driver's JSONL with the peers' JSON and writes docs/PERF.md (standard library only).

    python3 scripts/bench/report.py OUT_DIR|OUT_DIR/bench-raw.tar.gz [--md docs/PERF.md] [--targets FILE] [--analysis FILE]
    python3 scripts/bench/report.py --placeholder [--md docs/PERF.md]   # the page before any run
    python3 scripts/bench/report.py --selftest                         # no GPU, no torch

The input is the raw folder scripts/bench.sh fills (env.json, run.json, cases.json,
ceilings.json, hipfuse/*.jsonl, peers.jsonl, compile.jsonl), or the bench-raw.tar.gz it packs
it into, or the OUT_DIR holding that tarball. Writes PERF.md, perf.csv and summary.json into the
folder (not into a tarball), and the --md copy. Every number in the page comes from those files.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import shutil
import statistics
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import cases as catalogue  # noqa: E402

CONV = ("cba", "cbna")
VALID = ("PASSED",)            # driver statuses whose times count toward targets
SHOWN = ("PASSED", "EXECUTED", "MISTRUSTED", "FAILED")  # statuses whose times are shown (flagged)
FLAG = {"EXECUTED": "ᵘ", "MISTRUSTED": "ᵐ", "FAILED": "ᶠ"}
PEER_TEXT = {"cudnn_fused": "cuDNN fused call", "eager": "eager", "eager_cl": "channels-last eager",
             "compile": "torch.compile"}
CELL = {"skipped": "skip", "timeout": "t/o", "error": "err", "unsupported": "n/s"}


# ---- loading -----------------------------------------------------------------------------------

def read_json(path: Path, default=None):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return default


def read_jsonl(path: Path) -> list[dict]:
    rows = []
    if not path.exists():
        return rows
    for line in path.read_text(errors="replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            v = json.loads(line)
        except ValueError:
            continue  # a line cut by a kill
        if isinstance(v, dict):
            rows.append(v)
    return rows


def pick(rec: dict, *names):
    """The first of several field names present and not null (the driver's names may move)."""
    for n in names:
        if rec.get(n) is not None:
            return rec[n]
    return None


def num(v) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def case_id_of(name: str, known) -> str | None:
    for part in reversed(str(name).split("/")):
        if part in known:
            return part
    return None


class Data:
    """One harness run's raw folder; `peers_from` / `compile_from` (raw folders of other runs)
    replace its peers and ceilings / its torch.compile records, and the page names them."""

    def __init__(self, out: Path, peers_from: Path | None = None, compile_from: Path | None = None,
                 commit: str | None = None):
        self.out = out
        self.env = read_json(out / "env.json", {}) or {}
        # The commit the run measured, named when the page is generated: the run's own record
        # may be wrong (a stale .git in the GPU machine's copy of the tree); the page says both.
        self.commit = commit
        self.run = read_json(out / "run.json", {}) or {}
        peers_dir, compile_dir = peers_from or out, compile_from or out
        self.ceil = read_json(peers_dir / "ceilings.json", {}) or {}
        self.sources = [(what, read_json(src / "env.json", {}) or {})
                        for what, src in (("cuDNN and eager PyTorch peers, measured ceilings", peers_from),
                                          ("torch.compile peer", compile_from)) if src is not None]
        cases = read_json(out / "cases.json")
        if not cases:
            cases = catalogue.case_dicts(catalogue.ALL_CASES.values())
        # The work counts behind the floors are a model, not a measurement: a run's cases take the
        # catalogue's current FLOPs and bytes, so that a corrected count reaches older runs' pages.
        for c in cases:
            if c.get("id") in catalogue.ALL_CASES:
                model = catalogue.ALL_CASES[c["id"]]
                c["flops"], c["bytes"] = model.flops, model.bytes
        self.cases = {c["id"]: c for c in cases}
        self.order = [c["id"] for c in cases]
        # Driver records: the main run, then the cache-hit rerun apart.
        self.hip: dict[str, dict] = {}
        self.hip_all: list[dict] = []
        self.unmatched: list[str] = []
        for path in sorted((out / "hipfuse").glob("*.jsonl")) if (out / "hipfuse").exists() else []:
            rerun = path.name.startswith("rerun")
            for r in read_jsonl(path):
                r["_rerun"] = rerun
                self.hip_all.append(r)
                if rerun:
                    continue
                cid = case_id_of(r.get("name", ""), self.cases)
                if cid is None:
                    self.unmatched.append(str(r.get("name")))
                    continue
                prev = self.hip.get(cid)
                if prev is None or (prev.get("status") not in VALID and r.get("status") in VALID):
                    self.hip[cid] = r
        # Peers: (case, peer, layout) -> record; eager in channels-last is its own column.
        self.peer: dict[tuple, dict] = {}
        for r in read_jsonl(peers_dir / "peers.jsonl") + read_jsonl(compile_dir / "compile.jsonl"):
            self.peer[(r.get("case"), r.get("peer"), r.get("layout"))] = r

    def peer_rec(self, cid: str, peer: str, layout: str | None = None) -> dict | None:
        if layout is not None:
            return self.peer.get((cid, peer, layout))
        for (c, p, _), r in self.peer.items():
            if c == cid and p == peer:
                return r
        return None


# ---- per-case rows -----------------------------------------------------------------------------

def rate_tflops(ceil: dict, dtype: str) -> float | None:
    return num(ceil.get(f"matmul_{dtype}_tflops"))


def floors(case: dict, ceil: dict) -> tuple[float | None, float | None]:
    """(compute floor us, memory floor us) from the measured ceilings."""
    rate, bw = rate_tflops(ceil, case["dtype"]), num(ceil.get("copy_gbps"))
    fc = case["flops"] / (rate * 1e6) if rate and case.get("family") in CONV else None
    fm = case["bytes"] / (bw * 1e3) if bw else None
    return fc, fm


def ok_us(rec: dict | None) -> float | None:
    if rec and rec.get("status") == "ok":
        return num(rec.get("median_us"))
    return None


def build_rows(d: Data) -> list[dict]:
    rows = []
    headline = [c for c in d.order if d.cases[c].get("headline")]
    for cid in headline + [c for c in d.order if c not in headline]:
        case = d.cases[cid]
        h = d.hip.get(cid)
        row: dict = {"id": cid, "case": case, "family": case["family"], "dtype": case["dtype"],
                     "layout": case["layout"], "headline": bool(case.get("headline"))}
        status = h.get("status") if h else None
        row["hip_status"] = status
        row["hip_reason"] = (h or {}).get("reason") or ""
        t = num(pick(h, "median_us")) if h else None
        row["hip_us_shown"] = t if status in SHOWN else None
        row["hip_us"] = t if status in VALID else None
        row["unfused_us"] = num(pick(h, "baseline_us", "baseline_median_us")) if h else None
        row["baseline_note"] = (h or {}).get("baseline_note") or ""
        sp = num(pick(h, "speedup")) if h else None
        if sp is None and row["unfused_us"] and t:
            sp = row["unfused_us"] / t
        row["fusion_speedup"] = sp if status in VALID else None
        row["hip_kernels"] = pick(h, "kernels") if h else None
        row["unfused_kernels"] = pick(h, "baseline_kernels") if h else None
        row["buffer_sets"] = pick(h, "buffer_sets") if h else None
        row["compile_ms"] = num(pick(h, "compile_ms")) if h else None
        row["cache_hit"] = pick(h, "cache_hit") if h else None
        row["nrms"] = num(pick(h, "nrms")) if h else None
        # Peers.
        peers: dict[str, tuple[float | None, str, dict | None]] = {}
        if case["family"] in CONV:
            cands = [(ok_us(d.peer_rec(cid, "cudnn_fused", lay)), lay, d.peer_rec(cid, "cudnn_fused", lay))
                     for lay in ("nchw", "nhwc")]
            good = [c for c in cands if c[0] is not None]
            if good:
                us, lay, rec = min(good, key=lambda c: c[0])
                peers["cudnn_fused"] = (us, lay, rec)
            else:
                rec = next((c[2] for c in cands if c[2]), None)
                peers["cudnn_fused"] = (None, case["layout"], rec)
        for key, lay in (("eager", "nchw"), ("eager_cl", "nhwc")):
            rec = d.peer_rec(cid, "eager", lay)
            peers[key] = (ok_us(rec), lay, rec)
        rec = d.peer_rec(cid, "compile")
        peers["compile"] = (ok_us(rec), case["layout"], rec)
        row["peers"] = peers
        valid = [(us, k) for k, (us, _, _) in peers.items() if us is not None]
        row["best_us"], row["best_peer"] = min(valid) if valid else (None, None)
        cud = [peers[k][0] for k in ("cudnn_fused", "eager", "eager_cl") if k in peers and peers[k][0] is not None]
        row["cudnn_best_us"] = min(cud) if cud else None
        row["vs_best"] = row["best_us"] / row["hip_us"] if row["best_us"] and row["hip_us"] else None
        fc, fm = floors(case, d.ceil)
        row["floor_compute_us"], row["floor_memory_us"] = fc, fm
        fl = [f for f in (fc, fm) if f is not None]
        row["floor_us"] = max(fl) if fl else None
        row["bound"] = None if not fl else ("memory" if fc is None or (fm is not None and fm >= fc) else "compute")
        row["pct_floor"] = 100 * row["floor_us"] / row["hip_us"] if row["floor_us"] and row["hip_us"] else None
        row["pct_copy_bw"] = 100 * fm / row["hip_us"] if fm and row["hip_us"] else None
        rows.append(row)
    return rows


# ---- targets -----------------------------------------------------------------------------------

def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def series(rows: list[dict], d: Data) -> dict[str, list[tuple[float, str]]]:
    """Each target metric as (value, case id) pairs over the cases that have it."""
    s: dict[str, list[tuple[float, str]]] = {}

    def add(name, v, cid):
        if v is not None:
            s.setdefault(name, []).append((v, cid))

    for r in rows:
        fam, dt, cid, lay = r["family"], r["dtype"], r["id"], r["case"].get("layer")
        if fam in CONV and dt in ("fp16", "bf16"):
            add("lowp_conv_vs_best_peer", r["vs_best"], cid)
        if fam in CONV and lay and lay["r"] == 1 and r["bound"] == "memory":
            cf = r["peers"].get("cudnn_fused", (None,))[0]
            add("conv1x1_membound_vs_cudnn_fused", cf / r["hip_us"] if cf and r["hip_us"] else None, cid)
        if fam == "cba" and dt == "fp32":
            cb = r["cudnn_best_us"]
            add("fp32_cba_vs_cudnn_best", cb / r["hip_us"] if cb and r["hip_us"] else None, cid)
        if fam.startswith("na_"):
            add(f"{fam}_pct_copy_bw", r["pct_copy_bw"], cid)
        add("fused_vs_unfused", r["fusion_speedup"], cid)
    for rec in d.hip_all:
        cid = case_id_of(rec.get("name", ""), d.cases) or str(rec.get("name"))
        ms, hit = num(rec.get("compile_ms")), rec.get("cache_hit")
        if ms is not None and hit is False and not rec["_rerun"]:
            add("compile_cold_ms", ms, cid)
        if ms is not None and hit is True:
            add("compile_hit_ms", ms, cid)
        add("execute_host_us", num(pick(rec, "execute_host_us", "host_us", "host_overhead_us")), cid)
    return s


def stat_of(vals: list[tuple[float, str]], stat: str) -> tuple[float | None, str | None]:
    if not vals:
        return None, None
    if stat == "geomean":
        return geomean([v for v, _ in vals]), None
    if stat == "min":
        v, c = min(vals)
        return v, c
    if stat == "max":
        v, c = max(vals)
        return v, c
    return statistics.median([v for v, _ in vals]), None


def fmt_val(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    if unit == "x":
        return f"{v:.2f}×"
    if unit == "%":
        return f"{v:.0f}%"
    if unit == "ms":
        return f"{v:.1f} ms" if v < 100 else f"{v:.0f} ms"
    if unit == "us":
        return f"{v:.1f} µs"
    return f"{v:.3g}"


def evaluate_targets(rows, d: Data, targets: dict) -> list[dict]:
    s = series(rows, d)
    out = []
    for t in targets.get("targets", []):
        vals = s.get(t["metric"], [])
        v, where = stat_of(vals, t["stat"])
        if v is None:
            verdict = "NOT MEASURED"
        else:
            met = v >= t["value"] if t["op"] == ">=" else v <= t["value"]
            verdict = "MET" if met else "MISSED"
        extra = ""
        if t["metric"] == "lowp_conv_vs_best_peer" and vals:
            rows_by_id = {r["id"]: r for r in rows}
            with_tc = sum(1 for _, cid in vals if rows_by_id[cid]["peers"]["compile"][0] is not None)
            extra = f"; torch.compile among the peers in {with_tc} of {len(vals)}"
        if vals and t["stat"] == "geomean" and t["unit"] in ("x", "%"):
            lo, lo_c = min(vals)
            extra = f"; min {fmt_val(lo, t['unit'])} ({lo_c})" + extra
        elif where:
            extra = f" ({where})" + extra
        out.append(dict(t, verdict=verdict, figure=v, n=len(vals), extra=extra))
    return out


# ---- rendering ---------------------------------------------------------------------------------

def us(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v:.1f}" if v < 10000 else f"{v:.0f}"


def ratio(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}"


def case_label(c: dict) -> str:
    fam = {"cba": "CBA", "cbna": "CBNA", "na_inference": "NA inf", "na_fwd_training": "NA fwd",
           "na_bwd_training": "NA bwd"}[c["family"]]
    if c.get("layer"):
        l = c["layer"]
        geo = f"{l['r']}×{l['r']} {l['c']}→{l['k']} {l['h']}²" + (f" s{l['stride']}" if l["stride"] != 1 else "")
    else:
        n, ch, h, _ = c["input"]
        geo = f"{n}×{ch}×{h}×{h}"
    return f"{'★ ' if c.get('headline') else ''}{fam} {c['dtype']} {c['layout'].upper()} {geo}"


def peer_cell(entry, case_layout: str, show_layout: bool) -> str:
    v, lay, rec = entry
    if v is not None:
        s = us(v)
        if show_layout and lay != case_layout:
            s += " (cl)" if lay == "nhwc" else " (nchw)"
        if rec and rec.get("mode") and rec["mode"] != "max-autotune-no-cudagraphs":
            s += f" ({rec['mode']})"
        return s
    if rec is None:
        return "—"
    return CELL.get(rec.get("status"), rec.get("status") or "—")


def hip_cell(r) -> str:
    if r["hip_status"] is None:
        return "—"
    if r["hip_us_shown"] is None:
        return {"UNSUPPORTED": "n/s", "COMPILE_ERROR": "c/e"}.get(r["hip_status"], r["hip_status"].lower())
    return us(r["hip_us_shown"]) + FLAG.get(r["hip_status"], "")


TABLE_HEAD = ("| case | hipfuse fused µs | hipfuse unfused µs | fused vs unfused (×) | cuDNN fused call | eager | "
              "channels-last eager | torch.compile | best peer | hipfuse vs best peer (×) | floor µs | % of floor |")


def render_table(rows) -> list[str]:
    out = [TABLE_HEAD, "|" + "---|" * 12]
    for r in rows:
        p = r["peers"]
        fused = peer_cell(p["cudnn_fused"], r["layout"], True) if "cudnn_fused" in p else "n/a"
        best = f"{us(r['best_us'])} ({PEER_TEXT[r['best_peer']]})" if r["best_us"] else "—"
        floor = "—" if r["floor_us"] is None else f"{us(r['floor_us'])} {'M' if r['bound'] == 'memory' else 'C'}"
        pct = "—" if r["pct_floor"] is None else f"{r['pct_floor']:.0f}%"
        unfused = "n/a" if r["unfused_us"] is None and r["baseline_note"] else us(r["unfused_us"])
        out.append(f"| {case_label(r['case'])} | {hip_cell(r)} | {unfused} | {ratio(r['fusion_speedup'])} "
                   f"| {fused} | {peer_cell(p['eager'], r['layout'], False)} "
                   f"| {peer_cell(p['eager_cl'], r['layout'], False)} | {peer_cell(p['compile'], r['layout'], False)} "
                   f"| {best} | {ratio(r['vs_best'])} | {floor} | {pct} |")
    return out


LEGEND = """\
Times are medians in µs. ★ = a headline case of the issue. Speedups (×) are the other side's time over
hipfuse's fused time: above 1, hipfuse is faster. "fused vs unfused": hipfuse's own unfused sequence
(one kernel per op, `--baseline unfused`) over its fused plan. cuDNN fused call =
`torch.cudnn_convolution_relu`, the faster of NCHW and channels-last ("(cl)" / "(nchw)" marks the layout
when it is not the case's); for CBNA the BN is folded into the weights and bias beforehand (untimed),
since the call has no BN stage. "eager" is NCHW (contiguous), "channels-last eager" NHWC, whatever the
case's layout: peers get their better layout for free (no conversion timed). torch.compile runs in the
case's layout with mode max-autotune-no-cudagraphs ("(default)": that mode failed and mode default ran).
best peer = the fastest of the peer columns. floor = max(FLOPs / measured matrix rate of the dtype,
minimum bytes / measured copy bandwidth); M / C = memory / compute bound. % of floor = floor / hipfuse time.
Cells: — not run; skip = skipped (time budget); t/o = per-case timeout; err = the peer raised an error;
n/s = not supported; n/a = no such peer for the op (or no unfused baseline: see the notes below the table). hipfuse flags: ᶠ verification FAILED, ᵐ MISTRUSTED,
ᵘ EXECUTED without verification (shown, but left out of every target figure); c/e = compile error."""

METHOD = """\
## Method

**One run, one card.** `scripts/bench.sh BUILD_DIR OUT_DIR` runs, in one process tree on the GPU
machine: the hipfuse driver on each spec file of the set (`fusiondriver run specs/perf/<file>.toml
--baseline unfused --format jsonl --out ...`, cold kernel cache: `MIOPEN_CUSTOM_CACHE_DIR` is a fresh
directory), one spec file again in a new process for cache-hit compile times, the ceilings, the
cuDNN/eager peers, then torch.compile (headline cases first, then fp16/bf16 convs, BN, fp32 convs;
each case in a worker process killed past a per-case timeout). A wall-clock budget (default 560 s) is
shared out among the phases (hipfuse 60 % of it, the peers half of what is left, torch.compile the
rest); whatever a phase does not reach is recorded in run.json and listed as skipped.

**Same rules for every side.**
- Fresh random inputs, never zeros: every tensor uniform in [-1, 1] (data, weights, biases, BN scale,
  shift and mean), BN variances uniform in [0.5, 2), on both sides.
- Warm-up excluded: 10 untimed calls first (they include cuDNN's algorithm search with
  `torch.backends.cudnn.benchmark = True`, and torch.compile's compilation, timed apart).
- CUDA events recorded around each single call; the figure is the median of 50 timed calls
  (min / max / mean kept in the raw files). Host time stays out of the events and every call starts
  on a quiet GPU: before each timed peer call the GPU spins (`torch.cuda._sleep`, no memory touched)
  for 3 × the host's enqueue time of a call (at least 50 µs), so the call is queued when the start
  event is reached; before each timed hipfuse call (fused and unfused) the driver holds the stream
  idle for 50 µs at a host function that returns once the call and its events are queued
  (`--gap-us 50`; Execute's host time, `execute_host_us`, is ~4 µs). The raw records keep the same
  loops back to back: the peers' `median_us_unspaced` (above `median_us` where the host bounded
  it) and the driver's `median_us_back_to_back`.
- L2 not left warm: every side rotates among buffer sets, each call using the next set: one set when
  a call's working set (every tensor it touches) is at least 3 × the L2 (the device's l2CacheSize),
  else ⌈3 × L2 / working set⌉ + 1 sets, at most 64 (the driver's `--buffer-sets 0` rule, which the
  peers copy). The driver rotates every tensor, outputs included; the peers rotate their inputs,
  weights and parameters, and take outputs from PyTorch's caching allocator. The counts are in the
  raw files (driver `buffer_sets`, peers `nsets`). No L2 flush between calls, nothing subtracted.
- TF32 off for fp32 peers (cuDNN and cuBLAS in IEEE fp32), since hipfuse fp32 is true fp32. Every
  peer's output (dx for backward) is compared with an fp64 computation of the same inputs; the
  relative L2 error is in peers.jsonl (`rel_err`), so a TF32 or wrong path shows.
- BN backward peers: the autograd graph of relu(batch_norm(x, training=True)) is built once per buffer
  set (untimed); each timed call is one `torch.autograd.grad` of (x, γ, β) with `retain_graph=True`.
- BN training forward peers: `F.batch_norm(training=True)` with running statistics (momentum 0.1), then
  ReLU in place.

**Ceilings (measured in the same run).** Matrix rate: an 8192×8192×8192 `torch.matmul` on random
normal inputs, median of 10 after 3 warm-up calls, in bf16, fp16 and fp32 (no TF32). Bandwidth: a
1 GiB device-to-device copy, bytes read + written, median of 20.

**Floors.** FLOPs: 2 × N × K × Ho × Wo × C × R × S per conv plus a nominal count per element for the
pointwise ops (as driver/metrics.h). Minimum bytes: every tensor the plan's interface reads once and
every tensor it writes once (driver/metrics.h: for BN backward that is dy, x, y and dx; for BN
training forward x and y plus the statistics; of a convolution's x, only the pixels its windows
read: a quarter of x for a 1x1 of stride 2). floor = max(FLOPs / matrix rate of the case's dtype,
bytes / copy bandwidth). The fp16/bf16 matrix rate is the tensor-core rate: a kernel that does not use
tensor cores cannot reach the compute floor. "% of the copy bandwidth" for NA rows = the memory floor
over hipfuse's time; a two-pass BN kernel on a tensor larger than the L2 (statistics pass, then
normalise) reads x twice, so its ceiling on this figure is about 67 % (forward) and 60 % (backward:
reduce over dy and x, then apply).

**Not timed.** Layout conversions (each peer gets its layout for free), BN folding for cuDNN's fused
call, graph construction for backward, compilation."""


def render_header(d: Data) -> list[str]:
    e, c, run = d.env, d.ceil, d.run
    g0, g1 = e.get("gpu_before", {}) or {}, e.get("gpu_after", {}) or {}
    dev = c.get("device", {}) or {}
    lines = ["## Card and run", ""]
    name = g0.get("name") or dev.get("name") or "unknown"
    lines.append(f"- **Card:** {name}, driver {g0.get('driver_version', '?')}, power limit {g0.get('power.limit', '?')}, "
                 f"{dev.get('sm_count', '?')} SMs, L2 {round(dev['l2_bytes'] / 2**20) if dev.get('l2_bytes') else '?'} MiB, "
                 f"memory {g0.get('memory.total', '?')}.")
    load = e.get("load_avg_1min")
    lines.append(f"- **Host:** {e.get('cpu_model') or 'CPU model not recorded'}, {e.get('cpus', '?')} CPUs"
                 f"{f', load average {load:.2f} at the start' if isinstance(load, (int, float)) else ''} "
                 "(the plan compile and Execute host-time figures are the host's).")
    lines.append(f"- **Clocks as found** (not changed): before the run SM {g0.get('clocks.sm', '?')} "
                 f"(max {g0.get('clocks.max.sm', '?')}), memory {g0.get('clocks.mem', '?')} "
                 f"(max {g0.get('clocks.max.mem', '?')}), {g0.get('pstate', '?')}, {g0.get('temperature.gpu', '?')} °C; "
                 f"after: SM {g1.get('clocks.sm', '?')}, memory {g1.get('clocks.mem', '?')}, "
                 f"{g1.get('temperature.gpu', '?')} °C.")
    lines.append(f"- **Date:** {e.get('date_utc', '?')}.")
    lines.append(f"- **Command:** `{e.get('command', '?')}` (set `{e.get('set', '?')}`: {e.get('cases', '?')} cases in "
                 f"{len(e.get('spec_files', []))} spec files; budget {e.get('budget_s', '?')} s, "
                 f"elapsed {run.get('elapsed_s', '?')} s).")
    git = e.get("git", {}) or {}
    recorded = f"{(git.get('commit') or '?')[:12]}{' + uncommitted changes' if git.get('dirty') else ''}"
    commit = (f"{d.commit[:12]} (named with `report.py --commit`; the run recorded {recorded})" if d.commit
              else recorded)
    lines.append(f"- **Software:** torch {dev.get('torch', '?')}, CUDA {dev.get('cuda', '?')}, cuDNN {dev.get('cudnn', '?')}, "
                 f"Triton {dev.get('triton', '?')}, Python {e.get('python', '?')}; hipfuse commit {commit}.")
    for what, src in d.sources:
        lines.append(f"- **Re-measured in a later run:** {what}, from the run of {src.get('date_utc', '?')} "
                     f"(`{src.get('command', '?')}`, hipfuse commit {((src.get('git') or {}).get('commit') or '?')[:12]}); "
                     "the hipfuse figures are this run's.")
    return lines


def render_ceilings(c: dict) -> list[str]:
    if not c:
        return ["## Measured ceilings", "", "Not measured (the peers phase did not run or failed: see logs/peers.log).", ""]
    rows = [("bf16 matrix product (8192³, tensor cores)", c.get("matmul_bf16_tflops"), "TFLOP/s"),
            ("fp16 matrix product (8192³, tensor cores)", c.get("matmul_fp16_tflops"), "TFLOP/s"),
            ("fp32 matrix product (8192³, TF32 off)", c.get("matmul_fp32_tflops"), "TFLOP/s"),
            ("device-to-device copy, 1 GiB (read + written)", c.get("copy_gbps"), "GB/s")]
    out = ["## Measured ceilings", "", "| what | measured | used for |", "|---|---|---|"]
    use = ["bf16 compute floors", "fp16 compute floors", "fp32 compute floors", "memory floors, % of copy bandwidth"]
    for (what, v, unit), u in zip(rows, use):
        out.append(f"| {what} | {'—' if num(v) is None else f'{num(v):,.0f}'} {unit} | {u} |")
    copy = num(c.get("copy_gbps"))
    for s in c.get("sized_copies") or []:
        gbps, size = num(s.get("gbps")), num(s.get("bytes"))
        if gbps is None or size is None:
            continue
        share = f" ({100 * gbps / copy:.0f}% of the 1 GiB copy)" if copy else ""
        out.append(f"| device-to-device copy, {size / 2e6:.1f} MB (read + written), buffers rotated | "
                   f"{gbps:,.0f} GB/s{share} | context: one launch of that size |")
    return out + [""]


def noun(t: dict) -> str:
    word = "plan" if t["unit"] == "ms" else "case"
    return word if t["n"] == 1 else word + "s"


def render_targets(results: list[dict], targets: dict) -> list[str]:
    prov = "" if targets.get("confirmed") else " (provisional threshold)"
    out = ["## Targets", ""]
    if not targets.get("confirmed"):
        out += ["Thresholds come from scripts/bench/targets.json, which is **not yet confirmed** against the "
                "issue: each line says so.", ""]
    for t in results:
        thr = f"{t['op']} {fmt_val(t['value'], t['unit'])}"
        if t["verdict"] == "NOT MEASURED":
            why = "the driver does not report it" if t["metric"] == "execute_host_us" else "no case with data"
            out.append(f"- **NOT MEASURED** — {t['text']}: {why} (target {thr}{prov}).")
        else:
            out.append(f"- **{t['verdict']}** — {t['text']}: **{fmt_val(t['figure'], t['unit'])}** over {t['n']} "
                       f"{noun(t)}{t['extra']} (target {thr}{prov}).")
    return out + [""]


def render_misses(results: list[dict], analysis: dict) -> list[str]:
    """For each missed target: this run's figure, then the cause found and what would close it, from
    scripts/bench/analysis.json (written from profiles of the kernels; it names its evidence)."""
    missed = [t for t in results if t["verdict"] == "MISSED"]
    if not missed:
        return []
    notes = analysis.get("targets", {})
    out = ["## Missed targets: cause and what would close it", "",
           "Figures are this run's; causes and remedies come from scripts/bench/analysis.json, which names "
           "the profile or measurement each rests on.", ""]
    for t in missed:
        out.append(f"### {t['text']}: {fmt_val(t['figure'], t['unit'])} (target {t['op']} "
                   f"{fmt_val(t['value'], t['unit'])})")
        out.append("")
        note = notes.get(t["id"])
        if not note:
            out += ["**No analysis on record**: the cause of this miss has not been established.", ""]
            continue
        for key, label in (("cause", "Cause"), ("evidence", "Evidence"), ("to_close", "What would close it")):
            if note.get(key):
                out.append(f"- **{label}:** {note[key]}")
        out.append("")
    return out


def host_time_lines(rows, d: Data) -> list[str]:
    """Whether host time could have reached the events: the driver's Execute host time against
    the case's GPU time (its queue runs ahead when the first is smaller), and the peers' host
    time per call (they are timed behind a GPU spin longer than it, when the records say so)."""
    out = []
    hip = []
    for r in rows:
        host = num(pick(d.hip[r["id"]], "execute_host_us")) if r["hip_us"] else None
        if host:
            hip.append((host / r["hip_us"], r["id"]))
    gaps = {num(d.hip[r["id"]].get("gap_us")) for r in rows if r["hip_us"]}
    if hip:
        worst, cid = max(hip)
        head = f"- Host time: hipfuse's Execute took at most {100 * worst:.0f}% of a case's GPU time ({cid})"
        if gaps and None not in gaps and min(gaps) > 0:
            out.append(f"{head}; each timed call was queued behind a GPU idle gap of {min(gaps):g} µs.")
        else:
            out.append(f"{head}, so the driver's queue ran ahead of the GPU" + ("." if worst < 1 else ": NOT on that case."))
    b2b = [(num(d.hip[r["id"]].get("median_us_back_to_back")) / r["hip_us"], r["id"]) for r in rows
           if r["hip_us"] and num(d.hip[r["id"]].get("median_us_back_to_back"))]
    if b2b:
        lo, hi = min(b2b), max(b2b)
        out.append(f"- Timing rule: hipfuse back to back (no gap, `median_us_back_to_back`) took {lo[0]:.2f}× "
                   f"({lo[1]}) to {hi[0]:.2f}× ({hi[1]}) of its time with the gap; geomean "
                   f"{geomean([x for x, _ in b2b]):.2f}×.")
    peers = [(num(rec.get("host_us")), num(rec.get("spacer_us"))) for rec in d.peer.values() if rec.get("host_us")]
    if peers:
        out.append(f"- Host time: the peers took {min(h for h, _ in peers):.0f}-{max(h for h, _ in peers):.0f} µs of "
                   "host time a call and were timed behind a GPU spin of "
                   f"{min(x for _, x in peers if x):.0f}-{max(x for _, x in peers if x):.0f} µs.")
    elif d.peer:
        out.append("- Host time: the peers' records do not say (timed before the GPU spin existed): their times may "
                   "include host time where it exceeded the kernel's.")
    return out


def render_coverage(rows, d: Data) -> list[str]:
    out = ["## Coverage and what was skipped", ""]
    n = len(rows)
    hip = sum(1 for r in rows if r["hip_status"] is not None)
    by_status: dict[str, int] = {}
    for r in rows:
        if r["hip_status"]:
            by_status[r["hip_status"]] = by_status.get(r["hip_status"], 0) + 1
    out.append(f"- hipfuse: {hip} of {n} cases have a record ("
               + (", ".join(f"{k} {v}" for k, v in sorted(by_status.items())) or "none") + ").")
    for key in ("eager", "eager_cl", "cudnn_fused", "compile"):
        have = [r for r in rows if key in r["peers"]]
        okn = sum(1 for r in have if r["peers"][key][0] is not None)
        st: dict[str, int] = {}
        for r in have:
            rec = r["peers"][key][2]
            s = rec.get("status") if rec else "not run"
            if s != "ok":
                st[s] = st.get(s, 0) + 1
        out.append(f"- {PEER_TEXT[key]}: {okn} of {len(have)} cases timed"
                   + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(st.items())) + ")" if st else "") + ".")
    out += host_time_lines(rows, d)
    ph = d.run.get("phases", {})
    hp = ph.get("hipfuse", {})
    if hp.get("error"):
        out.append(f"- hipfuse phase: {hp['error']}.")
    if hp.get("skipped_files"):
        out.append(f"- hipfuse spec files not run (time budget): {', '.join(hp['skipped_files'])}.")
    for f in hp.get("files", []):
        if f.get("timed_out") or (f.get("rc") not in (0, 1) and f.get("rc") is not None):
            out.append(f"- hipfuse {f['file']}: " + ("killed at the phase deadline" if f.get("timed_out")
                                                      else f"driver exit code {f['rc']}")
                       + f" after {f.get('records', 0)} of {f.get('cases', '?')} records (logs/hipfuse_{f['file']}.log).")
    for name in ("peers", "compile"):
        p = ph.get(name, {})
        if p.get("timed_out") or (p.get("rc") not in (0, None)):
            out.append(f"- {name} phase: " + ("killed at its deadline" if p.get("timed_out") else f"exit code {p['rc']}")
                       + f" (logs/{name}.log).")
    if d.unmatched:
        out.append(f"- {len(d.unmatched)} driver records did not match a case id (first: {d.unmatched[0]}).")
    notes = sorted({(r["id"], r["hip_reason"]) for r in rows if r["hip_status"] not in (None, "PASSED") and r["hip_reason"]})
    for cid, why in notes[:20]:
        out.append(f"- {cid}: {why}")
    bnotes: dict[str, list[str]] = {}
    for r in rows:
        if r["baseline_note"]:
            bnotes.setdefault(r["baseline_note"], []).append(r["id"])
    for note, ids in sorted(bnotes.items()):
        out.append(f"- unfused baseline: {note} ({len(ids)} case{'s' if len(ids) > 1 else ''}, first {ids[0]}).")
    bad = []
    for r in rows:
        for key, (v, _, rec) in r["peers"].items():
            err = num((rec or {}).get("rel_err"))
            lim = 1e-5 if r["dtype"] == "fp32" else 2e-2
            if v is not None and err is not None and err > lim:
                bad.append(f"{r['id']} {PEER_TEXT[key]} rel_err {err:.1e}")
    if bad:
        out.append(f"- Peer outputs far from the fp64 result (fp32 > 1e-5 suggests TF32): {'; '.join(bad[:10])}.")
    sets = [(r["id"], r["buffer_sets"]) for r in rows if r["buffer_sets"] is not None]
    if sets:
        ones = [cid for cid, n in sets if n == 1 and d.cases[cid]["bytes"] < 3 * 50 * 2**20]
        if ones:
            out.append(f"- Driver used one buffer set on {len(ones)} cases whose working set is under 3× the L2 "
                       f"(first: {ones[0]}): the L2 may flatter those times.")
    return out + [""]


def placeholder_page() -> str:
    return "\n".join([
        "# hipfuse performance",
        "",
        "<!-- GENERATED FILE: written by scripts/bench/report.py. Do not edit by hand. -->",
        "",
        "> **PLACEHOLDER — no measurements yet.** This page is generated from a benchmark run on the GPU",
        "> machine; until one has been made and brought back, it holds no numbers. To produce it:",
        ">",
        "> 1. On the GPU machine, with a built fusiondriver (`scripts/setup.sh build`, or one built here",
        ">    and carried): `scripts/bench.sh build \"$OUT\"` (default set, 66 cases, 560 s budget;",
        ">    `--quick` for the 7 headline cases; `--set wide` 104 cases; `--full --budget 3600` all 336).",
        "> 2. Bring OUT back (PERF.md, summary.json, bench-raw.tar.gz) and regenerate this page anywhere",
        ">    (standard library only): `python3 scripts/bench/report.py OUT --md docs/PERF.md`.",
        "",
        "The page will hold: the card (nvidia-smi name, driver, clocks as found), the date, the exact",
        "command, the ceilings measured in the same run, one table of every case (hipfuse fused and",
        "unfused, cuDNN's fused call, eager PyTorch in NCHW and channels-last, torch.compile, the best",
        "peer, the roofline floor), and one MET / MISSED line per performance target of the issue.",
        "",
        METHOD,
        "",
    ])


def render(d: Data, rows, results, targets, analysis) -> str:
    parts = ["# hipfuse performance", "",
             "<!-- GENERATED FILE: written by scripts/bench/report.py from a scripts/bench.sh run"
             + (" and the runs that re-measured its peers" if d.sources else "") +
             ". Do not edit by hand; regenerate with: python3 scripts/bench/report.py OUT_DIR"
             + (" --peers-from RAW --compile-from RAW" if d.sources else "")
             + (f" --commit {d.commit[:12]}" if d.commit else "") + " --md docs/PERF.md -->", ""]
    parts += render_header(d) + [""]
    parts += render_ceilings(d.ceil)
    parts += render_targets(results, targets)
    parts += render_misses(results, analysis)
    parts += ["## Results", "", LEGEND, ""] + render_table(rows) + [""]
    parts += render_coverage(rows, d)
    parts += [METHOD, ""]
    return "\n".join(parts)


CSV_COLS = ["id", "family", "dtype", "layout", "headline", "hip_status", "hip_us", "hip_us_shown", "unfused_us",
            "fusion_speedup", "hip_kernels", "unfused_kernels", "buffer_sets", "compile_ms", "cache_hit", "nrms",
            "cudnn_fused_us", "cudnn_fused_layout", "eager_us", "eager_cl_us", "compile_us", "compile_mode",
            "best_us", "best_peer", "vs_best", "cudnn_best_us", "floor_us", "bound", "floor_compute_us",
            "floor_memory_us", "pct_floor", "pct_copy_bw", "flops", "bytes"]


def write_csv(rows, path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_COLS)
        w.writeheader()
        for r in rows:
            p = r["peers"]
            flat = {k: r.get(k) for k in CSV_COLS if k in r}
            cf = p.get("cudnn_fused")
            flat.update(cudnn_fused_us=cf[0] if cf else None, cudnn_fused_layout=cf[1] if cf and cf[0] else None,
                        eager_us=p["eager"][0], eager_cl_us=p["eager_cl"][0], compile_us=p["compile"][0],
                        compile_mode=(p["compile"][2] or {}).get("mode") if p["compile"][0] else None,
                        flops=r["case"]["flops"], bytes=r["case"]["bytes"])
            w.writerow(flat)


def generate(out: Path, md: Path | None, targets_path: Path, analysis_path: Path,
             peers_from: Path | None = None, compile_from: Path | None = None, commit: str | None = None) -> str:
    d = Data(out, peers_from, compile_from, commit)
    targets = read_json(targets_path, {"targets": []})
    analysis = read_json(analysis_path, {"targets": {}})
    rows = build_rows(d)
    results = evaluate_targets(rows, d, targets)
    page = render(d, rows, results, targets, analysis)
    (out / "PERF.md").write_text(page)
    write_csv(rows, out / "perf.csv")
    summary = {"targets": [{k: t[k] for k in ("id", "text", "verdict", "figure", "n", "op", "value", "unit")}
                           for t in results],
               "thresholds_confirmed": bool(targets.get("confirmed")),
               "cases": len(rows), "hipfuse_records": len(d.hip)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    if md:
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(page)
    return page


# ---- self-test ---------------------------------------------------------------------------------

def selftest() -> int:
    """Runs the report on the synthetic fixture in testdata/ and checks the figures."""
    fixture = HERE / "testdata" / "run"
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        shutil.copytree(fixture, out)
        page = generate(out, None, HERE / "testdata" / "targets.json", HERE / "testdata" / "analysis.json")
        summary = json.loads((out / "summary.json").read_text())
        rows = list(csv.DictReader(io.StringIO((out / "perf.csv").read_text())))
    t = {x["id"]: x for x in summary["targets"]}
    byid = {r["id"]: r for r in rows}
    # Join: "spec/case" names, the headline file and the family file give one row per case.
    check("- **Host:** SYNTHETIC CPU, 16 CPUs, load average 0.50 at the start" in page, "the host's CPU on the page")
    check(len(rows) == 9, f"9 rows expected, got {len(rows)}")
    check(summary["hipfuse_records"] == 8, f"8 matched driver records expected, got {summary['hipfuse_records']}")
    a = byid["cba_fp16_nhwc_1x1_c64_k256_56"]
    check(a["best_peer"] == "cudnn_fused" and abs(float(a["best_us"]) - 90.0) < 1e-9,
          f"best peer of the 1x1 case: cuDNN channels-last at 90 us, got {a['best_peer']} {a['best_us']}")
    check(a["cudnn_fused_layout"] == "nhwc", "the faster cuDNN layout is kept")
    check(abs(float(a["vs_best"]) - 90.0 / 60.0) < 1e-9, f"vs best 1.5, got {a['vs_best']}")
    # floor: bytes / (4000 GB/s) vs flops / (800 TFLOP/s)
    c = catalogue.ALL_CASES["cba_fp16_nhwc_1x1_c64_k256_56"]
    fm, fc = c.bytes / 4000e3, c.flops / 800e6
    check(abs(float(a["floor_us"]) - max(fm, fc)) < 1e-6 and a["bound"] == "memory", "memory floor of the 1x1 case")
    # A strided 1x1's least traffic reads a quarter of x (every other row and column); a 3x3 of
    # stride 2 reads all of it.
    s2, s2x3 = catalogue.ALL_CASES["cba_fp16_nhwc_1x1_c256_k512_56s2"], catalogue.ALL_CASES["cba_fp16_nhwc_3x3_c128_k128_56s2"]
    check(s2.bytes == 2 * (64 * 256 * 28 * 28 + 64 * 512 * 28 * 28 + 512 * 256 + 512), f"1x1 s2 bytes {s2.bytes}")
    check(s2x3.bytes == 2 * (64 * 128 * 56 * 56 + 64 * 128 * 28 * 28 + 128 * 128 * 9 + 128), f"3x3 s2 bytes {s2x3.bytes}")
    # A FAILED case is shown but counts nowhere; a timeout and an error peer are named.
    f = byid["cba_fp16_nhwc_3x3_c64_k64_56"]
    check(f["hip_status"] == "FAILED" and f["hip_us"] == "" and f["hip_us_shown"] != "", "FAILED time shown, not valid")
    check("ᶠ" in page, "FAILED flag in the table")
    check("t/o" in page and "err" in page, "timeout and error cells")
    # Targets: geomean over the two valid fp16/bf16 conv cases: 1.5 and 0.5 -> sqrt(0.75).
    g = t["lowp_conv_geomean"]
    check(abs(g["figure"] - math.sqrt(1.5 * 0.5)) < 1e-9 and g["verdict"] == "MISSED",
          f"lowp geomean {g['figure']} {g['verdict']}")
    check(t["lowp_conv_min"]["figure"] == 0.5 and t["lowp_conv_min"]["verdict"] == "MISSED", "lowp min")
    check(t["fp32_cba"]["verdict"] == "MET" and abs(t["fp32_cba"]["figure"] - 1.25) < 1e-9,
          f"fp32 CBA vs cuDNN best (eager 500 / 400), got {t['fp32_cba']}")
    na = catalogue.ALL_CASES["na_inference_fp32_nchw_c64_112"]
    pct = 100 * (na.bytes / 4000e3) / 150.0
    check(abs(t["na_inference_bw"]["figure"] - pct) < 1e-6, f"NA inference % of copy bw {pct}")
    check(t["compile_cold"]["figure"] == 900.0 and t["compile_hit"]["figure"] == 2.0, "compile cold/hit medians")
    check(t["execute_host"]["verdict"] == "NOT MEASURED", "host overhead not reported by the fixture")
    check("(provisional threshold)" in page, "unconfirmed thresholds are marked")
    check("(default)" in page, "torch.compile fallback mode is marked")
    check("PLACEHOLDER" not in page and "PLACEHOLDER" in placeholder_page(), "placeholder only when asked")
    check("killed at the phase deadline" in page, "a driver file cut by the deadline is reported")
    check("device-to-device copy, 25.7 MB (read + written), buffers rotated | 3,211 GB/s (80% of the 1 GiB copy)" in page,
          "a sized copy is listed with its share of the 1 GiB copy")
    # Missed targets: the analysis file's cause where it has one, a plain statement where not.
    check("- **Cause:** fixture cause of the low-precision miss" in page, "analysis of a missed target shown")
    check(page.count("**No analysis on record**") == sum(1 for x in t.values() if x["verdict"] == "MISSED") - 1,
          "every other missed target says it has no analysis")
    check("fixture cause of a met target" not in page, "met targets get no analysis section")
    for line in page.splitlines():
        if line.startswith("| ★") or line.startswith("| CBA") or line.startswith("| NA"):
            check(line.count("|") == 13, f"12 columns: {line}")
    # Peers re-measured in another run (--peers-from): its records replace this run's, and the
    # page names the run they come from.
    with tempfile.TemporaryDirectory() as tmp:
        out, later = Path(tmp) / "out", Path(tmp) / "later"
        shutil.copytree(fixture, out)
        shutil.copytree(fixture, later)
        env = json.loads((later / "env.json").read_text())
        env["date_utc"] = "LATER FIXTURE RUN"
        (later / "env.json").write_text(json.dumps(env))
        recs = [json.loads(x) for x in (later / "peers.jsonl").read_text().splitlines() if x.strip()]
        for r in recs:
            if "median_us" in r:
                r["median_us"] = r["median_us"] / 2
                r["host_us"], r["spacer_us"] = 20.0, 60.0
        (later / "peers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
        page3 = generate(out, None, HERE / "testdata" / "targets.json", HERE / "testdata" / "analysis.json",
                         commit="0123456789abcdef")
        page2 = generate(out, None, HERE / "testdata" / "targets.json", HERE / "testdata" / "analysis.json", later)
        rows2 = {r["id"]: r for r in csv.DictReader(io.StringIO((out / "perf.csv").read_text()))}
    row1 = {r["id"]: r for r in rows}["cba_fp16_nhwc_1x1_c64_k256_56"]
    row2 = rows2["cba_fp16_nhwc_1x1_c64_k256_56"]
    check(abs(float(row2["cudnn_fused_us"]) - float(row1["cudnn_fused_us"]) / 2) < 1e-6,
          "--peers-from: the later run's peer times are used")
    check("Re-measured in a later run:** cuDNN and eager PyTorch peers, measured ceilings, from the run of LATER "
          "FIXTURE RUN" in page2, "--peers-from: the page names the run the peers come from")
    check("the peers' records do not say" in page, "peers without host_us: the page says their time may include the host's")
    check("the peers took 20-20 µs of host time a call and were timed behind a GPU spin of 60-60 µs" in page2,
          "peers with host_us: host time and spin listed")
    check("hipfuse commit 0123456789ab (named with `report.py --commit`; the run recorded" in page3 and
          "--commit 0123456789ab --md" in page3, "--commit: the page names both commits and the command")

    if failures:
        for f in failures:
            print(f"selftest FAILED: {f}", file=sys.stderr)
        return 1
    print("report.py selftest: all checks passed")
    return 0


def raw_folder(src: Path, unpack_to: Path) -> Path | None:
    """A run's raw folder: `src` itself, or bench-raw.tar.gz (in `src` or `src` itself) unpacked
    under `unpack_to`; None when the tarball holds no cases.json."""
    if src.is_dir() and not (src / "cases.json").exists() and (src / "bench-raw.tar.gz").exists():
        src = src / "bench-raw.tar.gz"
    if src.is_dir():
        return src
    with tarfile.open(src) as tf:
        try:
            tf.extractall(unpack_to, filter="data")
        except TypeError:  # Python < 3.11.4: no extraction filters
            tf.extractall(unpack_to)
    found = sorted(unpack_to.rglob("cases.json"))
    return found[0].parent if found else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("--md", help="also write the page here (e.g. docs/PERF.md)")
    ap.add_argument("--targets", default=str(HERE / "targets.json"))
    ap.add_argument("--analysis", default=str(HERE / "analysis.json"),
                    help="causes and remedies of missed targets, shown under each miss")
    ap.add_argument("--peers-from", metavar="RAW",
                    help="take the cuDNN / eager peers and the ceilings from this run instead (folder or tarball)")
    ap.add_argument("--compile-from", metavar="RAW", help="take the torch.compile peer from this run instead")
    ap.add_argument("--commit", metavar="SHA",
                    help="the hipfuse commit the run measured, where the run recorded a wrong one (the page shows both)")
    ap.add_argument("--placeholder", action="store_true", help="write the no-results page to --md")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args(argv)
    if a.selftest:
        return selftest()
    if a.placeholder:
        Path(a.md or REPO / "docs" / "PERF.md").write_text(placeholder_page())
        return 0
    if not a.out_dir:
        ap.error("OUT_DIR is required (or --placeholder / --selftest)")
    md = Path(a.md).resolve() if a.md else None
    with tempfile.TemporaryDirectory() as tmp:
        def raw(path: str | None, name: str) -> Path | None:
            if not path:
                return None
            if not Path(path).exists():
                ap.error(f"{path}: no such folder or tarball")
            found = raw_folder(Path(path), Path(tmp) / name)
            if found is None:
                ap.error(f"{path}: no cases.json inside")
            return found

        page = generate(raw(a.out_dir, "main"), md, Path(a.targets), Path(a.analysis),
                        raw(a.peers_from, "peers"), raw(a.compile_from, "compile"), a.commit)
    # The targets block on stdout: the tail of the GPU call's output shows it.
    start = page.find("## Targets")
    end = page.find("## Missed targets") if "## Missed targets" in page else page.find("## Results")
    print(page[start:end].strip() if start >= 0 else page[:2000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
