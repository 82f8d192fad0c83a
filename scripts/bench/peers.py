#!/usr/bin/env python3
"""Times the peers of hipfuse on the perf cases, and measures the machine's ceilings.

Runs on the GPU machine only (needs torch with CUDA). Sub-commands:

  measure  --cases CASES.json --out PEERS.jsonl --ceilings CEILINGS.json [--deadline EPOCH]
      the ceilings (bf16/fp16/fp32 matrix rates, device-to-device copy bandwidth), then per case:
      cuDNN's fused call (torch.cudnn_convolution_relu) in NCHW and channels-last, eager PyTorch
      in NCHW and channels-last. One JSON line per (case, peer), flushed as it goes.
  compile  --cases CASES.json --out COMPILE.jsonl [--deadline EPOCH] [--case-timeout S]
      torch.compile(mode="max-autotune-no-cudagraphs") of the eager function of each case (falls
      back to mode="default" and says so). Each case runs in a worker process that is killed
      when the case exceeds --case-timeout or the deadline passes; the next worker resumes.
  profile  --case ID [--peer cudnn_fused|eager] [--layout nhwc|nchw] [--calls N]
      one peer of one case (any set's), warmed up as `measure` does (so cuDNN has made its
      choice), then N calls inside an NVTX range named "peer", for a profiler to capture only
      those (scripts/profile_peer.sh: which kernels cuDNN runs, their grid, cluster and counters).

Timing method (the same for every side; see docs/PERF.md "Method"): fresh random inputs
(uniform in [-1, 1], never zeros), untimed warm-up (which includes cuDNN's autotuning and
torch.compile's compilation), CUDA events around each single call with the GPU kept busy before it
(time_calls), median of ITERS calls.
Inputs rotate among several buffer sets so that one timed call's working set plus the sets
around it exceed the L2 several times (the rule in rotation_sets(), the one the driver uses).
TF32 is off (cuDNN and matmul) so fp32 peers compute in true fp32 like hipfuse.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cases as catalogue  # noqa: E402

# Buffer rotation: the driver's rule (driver/device_buffers.cpp buffer_sets_for, used with
# --buffer-sets 0): one set when a call's working set is at least ROTATE_FACTOR x the L2 (the
# device's l2CacheSize), else ceil(3 L2 / working set) + 1 sets, at most MAX_SETS. The driver's
# count is in its JSONL (buffer_sets), ours in peers.jsonl (nsets).
ROTATE_FACTOR = 3
MAX_SETS = 64
DEFAULT_L2 = 50 * 2**20


def rotation_sets(set_bytes: float, l2_bytes: int) -> int:
    target = ROTATE_FACTOR * l2_bytes
    if set_bytes <= 0 or set_bytes >= target:
        return 1
    return int(min(math.ceil(target / set_bytes) + 1, MAX_SETS))


def now() -> float:
    return time.time()


def emit(fh, rec: dict) -> None:
    fh.write(json.dumps(rec, sort_keys=True) + "\n")
    fh.flush()


def log(msg: str) -> None:
    print(f"[peers {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---- torch setup ----------------------------------------------------------------------------

def torch_setup():
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("peers.py: torch sees no CUDA device")
    torch.backends.cudnn.benchmark = True  # cuDNN picks its fastest algorithm (in the untimed warm-up)
    # TF32 off: fp32 peers compute in true fp32, as hipfuse does. PyTorch >= 2.9 has the
    # fp32_precision knobs and objects to mixing them with the legacy allow_tf32 flags.
    try:
        new_api = isinstance(torch.backends.cuda.matmul.fp32_precision, str)
    except AttributeError:
        new_api = False
    if new_api:
        torch.backends.fp32_precision = "ieee"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
    else:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")
    return torch


def tf32_state(torch) -> dict:
    try:
        if hasattr(torch.backends.cuda.matmul, "fp32_precision"):
            return {"matmul": torch.backends.cuda.matmul.fp32_precision,
                    "cudnn_conv": torch.backends.cudnn.conv.fp32_precision}
        return {"matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
                "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32}
    except Exception as e:  # noqa: BLE001
        return {"error": str(e)}


def device_info(torch) -> dict:
    p = torch.cuda.get_device_properties(0)
    info = {
        "name": p.name,
        "sm_count": p.multi_processor_count,
        "total_memory_gib": round(p.total_memory / 2**30, 1),
        "l2_bytes": int(getattr(p, "L2_cache_size", 0) or 0),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "fp32_precision": tf32_state(torch),
    }
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        info["triton"] = None
    return info


# ---- timing core ----------------------------------------------------------------------------

def summarize(us: list[float]) -> dict:
    s = sorted(us)
    n = len(s)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return {"min_us": s[0], "median_us": med, "max_us": s[-1], "mean_us": sum(s) / n, "samples": n}


# Before each timed call the GPU spins (torch.cuda._sleep, no memory touched) for SPACER_FACTOR
# times the host's enqueue time of one call, at least SPACER_MIN_US, so that when the start event
# is reached the call is already queued behind it: the host's per-call work (PyTorch dispatch,
# cuDNN frontend: 16-67 us a call on one H200 host, 2026-12-01) cannot fall between the events. The
# driver is timed under the same rule (run.py passes `--gap-us SPACER_MIN_US`: the GPU idles that
# long before each timed Execute, which is queued in full when its start event is reached; its
# host time, execute_host_us, is ~4 us, far below a third of the gap).
SPACER_FACTOR = 3.0
SPACER_MIN_US = 50.0
SPIN_CYCLES_PER_US = 2000  # at most 2 GHz (H200: 1.98): at least the asked-for time at any clock


def host_enqueue_us(torch, call, nsets: int, calls: int = 10) -> float:
    """Host time to enqueue one call (no synchronisation inside the loop)."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(calls):
        call(i % nsets)
    spent = (time.perf_counter() - t0) / calls * 1e6
    torch.cuda.synchronize()
    return spent


def time_calls(torch, call, nsets: int, warmup: int, iters: int) -> dict:
    """call(i) runs one execution on buffer set i % nsets. Events around each timed call, a GPU
    spin before each (see SPACER_FACTOR); `median_us_unspaced` is the same loop without it (a
    diagnostic: above median_us, the unspaced loop was bound by the host)."""
    for i in range(warmup):
        call(i % nsets)
    host_us = host_enqueue_us(torch, call, nsets)
    spin = int(max(SPACER_MIN_US, SPACER_FACTOR * host_us) * SPIN_CYCLES_PER_US)

    def timed(spaced: bool) -> list[float]:
        torch.cuda.synchronize()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
        for i, (start, end) in enumerate(events):
            j = (warmup + i) % nsets
            if spaced:
                torch.cuda._sleep(spin)
            start.record()
            call(j)
            end.record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) * 1e3 for s, e in events]

    st = summarize(timed(True))
    st["host_us"] = host_us
    st["spacer_us"] = spin / SPIN_CYCLES_PER_US
    st["median_us_unspaced"] = summarize(timed(False))["median_us"]
    return st


# ---- ceilings -------------------------------------------------------------------------------

# Copies of the NA tensors' sizes (fp32 64 x {2048x7x7 .. 64x112x112}: 25.7 to 205.5 MB): what
# one launch that reads and writes that many bytes reaches, launch and ramp included, against
# the 1 GiB copy that sets the memory floors.
SIZED_COPY_BYTES = (25_690_112, 51_380_224, 102_760_448, 205_520_896)


def measure_ceilings(torch, l2_bytes: int = 0) -> dict:
    out: dict = {}
    n = 8192
    for name, dt in (("bf16", torch.bfloat16), ("fp16", torch.float16), ("fp32", torch.float32)):
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, n, device="cuda", dtype=dt)
        c = torch.empty(n, n, device="cuda", dtype=dt)
        st = time_calls(torch, lambda i: torch.matmul(a, b, out=c), 1, 3, 10)
        out[f"matmul_{name}_tflops"] = 2.0 * n**3 / (st["median_us"] * 1e-6) / 1e12
        out[f"matmul_{name}_median_us"] = st["median_us"]
        del a, b, c
    nbytes = 2**30
    src = torch.empty(nbytes // 4, device="cuda", dtype=torch.float32).uniform_(-1, 1)
    dst = torch.empty_like(src)
    st = time_calls(torch, lambda i: dst.copy_(src), 1, 3, 20)
    out["copy_bytes"] = 2 * nbytes  # read + written
    out["copy_median_us"] = st["median_us"]
    out["copy_gbps"] = 2 * nbytes / (st["median_us"] * 1e-6) / 1e9
    del src, dst
    out["sized_copies"] = []
    for size in SIZED_COPY_BYTES:  # buffer pairs rotated as for the cases (L2 not left warm)
        nsets = rotation_sets(2 * size, l2_bytes or DEFAULT_L2)
        pairs = [(torch.empty(size // 4, device="cuda", dtype=torch.float32).uniform_(-1, 1),
                  torch.empty(size // 4, device="cuda", dtype=torch.float32)) for _ in range(nsets)]
        st = time_calls(torch, lambda i: pairs[i][1].copy_(pairs[i][0]), nsets, 3, 20)
        out["sized_copies"].append({"bytes": 2 * size, "median_us": st["median_us"],
                                    "gbps": 2 * size / (st["median_us"] * 1e-6) / 1e9})
        del pairs
    out["matmul_shape"] = f"{n}x{n}x{n}, random normal, median of 10 after 3 warm-up"
    out["copy_shape"] = "1 GiB fp32 device-to-device, bytes read + written, median of 20 after 3 warm-up"
    out["tf32"] = "off"
    torch.cuda.empty_cache()
    return out


# ---- problems -------------------------------------------------------------------------------

TORCH_DTYPE = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


class Problem:
    """Random buffer sets for one case and the functions each peer calls."""

    def __init__(self, torch, case: dict, nsets: int, seed: int = 1234):
        import torch.nn.functional as F
        self.torch, self.case, self.F = torch, case, F
        dt = getattr(torch, TORCH_DTYPE[case["dtype"]])
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        dev = "cuda"

        def uni(shape, lo=-1.0, hi=1.0, dtype=dt):
            return torch.empty(shape, device=dev, dtype=dtype).uniform_(lo, hi, generator=g)

        fam = case["family"]
        self.family = fam
        n, c, h, w = case["input"]
        self.sets = []
        for _ in range(nsets):
            # As the driver fills (driver/host_data.h): uniform in [-1, 1], variances in [0.5, 2).
            s = {"x": uni((n, c, h, w))}
            if fam in ("cba", "cbna"):
                l = case["layer"]
                s["w"] = uni((l["k"], l["c"], l["r"], l["r"]))
                s["b"] = uni((l["k"],))
                ch = l["k"]
            else:
                ch = c
            if fam in ("cbna", "na_inference", "na_fwd_training", "na_bwd_training"):
                f32 = torch.float32  # BN parameters and statistics are fp32 (MIOpen's convention)
                s["gamma"] = uni((ch,), dtype=f32)
                s["beta"] = uni((ch,), dtype=f32)
                s["mean"] = uni((ch,), dtype=f32)
                s["var"] = uni((ch,), 0.5, 2.0, f32)
            if fam == "na_bwd_training":
                s["dy"] = uni((n, c, h, w))
            self.sets.append(s)
        if fam in ("cba", "cbna"):
            l = case["layer"]
            self.stride, self.pad = [l["stride"]] * 2, [l["pad"]] * 2

    # Channels-last copies of the data tensors (x, w, dy) of every set.
    def channels_last(self):
        torch = self.torch
        cl = []
        for s in self.sets:
            t = dict(s)
            for k in ("x", "w", "dy"):
                if k in t:
                    t[k] = t[k].contiguous(memory_format=torch.channels_last)
            cl.append(t)
        return cl

    # The eager function of the case: returns f(set) -> output tensor (forward families).
    def eager_fn(self):
        F, eps, fam = self.F, catalogue.BN_EPS, self.family
        if fam == "cba":
            return lambda s: F.relu(F.conv2d(s["x"], s["w"], s["b"], self.stride, self.pad), inplace=True)
        if fam == "cbna":
            return lambda s: F.relu(F.batch_norm(F.conv2d(s["x"], s["w"], s["b"], self.stride, self.pad),
                                                 s["mean"], s["var"], s["gamma"], s["beta"], False, 0.0, eps),
                                    inplace=True)
        if fam == "na_inference":
            return lambda s: F.relu(F.batch_norm(s["x"], s["mean"], s["var"], s["gamma"], s["beta"], False, 0.0, eps),
                                    inplace=True)
        if fam in ("na_fwd_training", "na_bwd_training"):
            mom = catalogue.BN_EXP_AVG
            return lambda s: F.relu(F.batch_norm(s["x"], s["mean"], s["var"], s["gamma"], s["beta"], True, mom, eps),
                                    inplace=True)
        raise ValueError(fam)

    # A tensor-argument form of the eager function for torch.compile (no closures over data).
    def compile_target(self):
        F, eps, fam = self.F, catalogue.BN_EPS, self.family
        stride, pad = (getattr(self, "stride", None), getattr(self, "pad", None))
        mom = catalogue.BN_EXP_AVG
        if fam == "cba":
            def f(x, w, b):
                return F.relu(F.conv2d(x, w, b, stride, pad))
            return f, ("x", "w", "b")
        if fam == "cbna":
            def f(x, w, b, mean, var, gamma, beta):
                return F.relu(F.batch_norm(F.conv2d(x, w, b, stride, pad), mean, var, gamma, beta, False, 0.0, eps))
            return f, ("x", "w", "b", "mean", "var", "gamma", "beta")
        if fam == "na_inference":
            def f(x, mean, var, gamma, beta):
                return F.relu(F.batch_norm(x, mean, var, gamma, beta, False, 0.0, eps))
            return f, ("x", "mean", "var", "gamma", "beta")

        def f(x, mean, var, gamma, beta):
            return F.relu(F.batch_norm(x, mean, var, gamma, beta, True, mom, eps))
        return f, ("x", "mean", "var", "gamma", "beta")

    def folded(self, sets):
        """BN inference folded into conv weights and bias (setup, untimed): cuDNN's fused call
        has no BN stage, so this is how a cuDNN user runs CBNA in one call."""
        torch, eps = self.torch, catalogue.BN_EPS
        out = []
        for s in sets:
            a = s["gamma"] / torch.sqrt(s["var"] + eps)
            w = (s["w"].float() * a.view(-1, 1, 1, 1)).to(s["w"].dtype)
            b = ((s["b"].float() - s["mean"]) * a + s["beta"]).to(s["b"].dtype)
            if s["x"].is_contiguous(memory_format=torch.channels_last) and not s["x"].is_contiguous():
                w = w.contiguous(memory_format=torch.channels_last)
            t = dict(s)
            t["w"], t["b"] = w, b
            out.append(t)
        return out

    # fp64 reference of the case's output on set 0 (dx for the backward family).
    def reference(self):
        torch = self.torch
        s = {k: v.double() for k, v in self.sets[0].items()}  # copies: training mode updates mean/var
        f = self.eager_fn()
        if self.family == "na_bwd_training":
            x = s["x"].requires_grad_(True)
            y = f(dict(s, x=x))
            return torch.autograd.grad(y, x, s["dy"])[0]
        return f(s)


def reference_or_none(prob: Problem):
    try:
        return prob.reference()
    except Exception as e:  # noqa: BLE001 - the timing does not need it
        log(f"{prob.case['id']}: no fp64 reference ({type(e).__name__}: {e})")
        return None


def rel_err(torch, out, ref) -> float | None:
    try:
        o = out.double()
        return float(torch.linalg.vector_norm(o - ref) / torch.linalg.vector_norm(ref))
    except Exception:  # noqa: BLE001
        return None


def fresh_stats(s: dict) -> dict:
    """Running statistics are updated in place by training-mode calls: copy them per use."""
    t = dict(s)
    for k in ("mean", "var"):
        if k in t:
            t[k] = t[k].clone()
    return t


def run_forward_peer(torch, sets, fn, warmup, iters, ref) -> dict:
    out0 = fn(fresh_stats(sets[0]))
    err = rel_err(torch, out0, ref) if ref is not None else None
    del out0
    st = time_calls(torch, lambda i: fn(sets[i]), len(sets), warmup, iters)
    st["rel_err"] = err
    return st


def run_backward_peer(torch, sets, fwd, warmup, iters, ref) -> dict:
    """Backward of relu(batch_norm(x, training=True)): the graph is built once per buffer set
    (untimed); each timed call is one torch.autograd.grad over it (dx, dgamma, dbeta)."""
    graphs = []
    for s in sets:
        x = s["x"].detach().requires_grad_(True)
        gamma = s["gamma"].detach().requires_grad_(True)
        beta = s["beta"].detach().requires_grad_(True)
        t = dict(fresh_stats(s), x=x, gamma=gamma, beta=beta)
        y = fwd(t)
        graphs.append((y, (x, gamma, beta), s["dy"]))
    y0, in0, dy0 = graphs[0]
    dx0 = torch.autograd.grad(y0, in0, dy0, retain_graph=True)[0]
    err = rel_err(torch, dx0, ref) if ref is not None else None
    del dx0

    def call(i):
        y, ins, dy = graphs[i]
        torch.autograd.grad(y, ins, dy, retain_graph=True)

    st = time_calls(torch, call, len(graphs), warmup, iters)
    st["rel_err"] = err
    return st


def cudnn_fused_call(torch):
    f = getattr(torch, "cudnn_convolution_relu", None)
    if f is None:
        f = torch.ops.aten.cudnn_convolution_relu
    return f


def cudnn_fused_peer(fused, prob, sets):
    """cuDNN's fused call on a case's buffer sets: (the sets it reads, f(set) -> y). CBNA's BN is
    folded into the weights and bias first (untimed): the call has no BN stage."""
    fsets = prob.folded(sets) if prob.family == "cbna" else sets
    st, pd = prob.stride, prob.pad
    return fsets, lambda s: fused(s["x"], s["w"], s["b"], st, pd, [1, 1], 1)


# ---- measure: ceilings + eager peers ------------------------------------------------------------

def peer_plan(case: dict) -> list[tuple[str, str]]:
    """(peer, memory format) pairs timed by `measure` for a case."""
    fam = case["family"]
    plan = []
    if fam in ("cba", "cbna"):
        plan += [("cudnn_fused", "nchw"), ("cudnn_fused", "nhwc")]
    plan += [("eager", "nchw"), ("eager", "nhwc")]
    return plan


def cmd_measure(a) -> int:
    torch = torch_setup()
    cases = json.loads(Path(a.cases).read_text())
    info = device_info(torch)
    l2 = info["l2_bytes"] or DEFAULT_L2
    t0 = now()
    ceil = measure_ceilings(torch, l2)
    ceil["device"] = info
    ceil["rotation"] = {"factor": ROTATE_FACTOR, "max_sets": MAX_SETS, "l2_bytes": l2}
    ceil["seconds"] = now() - t0
    Path(a.ceilings).write_text(json.dumps(ceil, indent=1, sort_keys=True) + "\n")
    log(f"ceilings: bf16 {ceil['matmul_bf16_tflops']:.0f} TFLOP/s, fp16 {ceil['matmul_fp16_tflops']:.0f}, "
        f"fp32 {ceil['matmul_fp32_tflops']:.1f}, copy {ceil['copy_gbps']:.0f} GB/s ({ceil['seconds']:.1f} s)")
    cudnn_fused = cudnn_fused_call(torch)
    with open(a.out, "a") as fh:
        for idx, case in enumerate(cases):
            remaining = a.deadline - now() if a.deadline else float("inf")
            if remaining < a.min_case_s:
                for c2 in cases[idx:]:
                    for peer, mf in peer_plan(c2):
                        emit(fh, {"case": c2["id"], "peer": peer, "layout": mf, "status": "skipped",
                                  "note": "time budget spent"})
                log(f"budget: skipped {len(cases) - idx} cases")
                break
            tc = now()
            nsets = rotation_sets(case["bytes"], l2)
            try:
                prob = Problem(torch, case, nsets)
            except Exception as e:  # noqa: BLE001
                for peer, mf in peer_plan(case):
                    emit(fh, {"case": case["id"], "peer": peer, "layout": mf, "status": "error",
                              "note": f"setup: {type(e).__name__}: {e}"[:500]})
                continue
            ref = reference_or_none(prob)
            layouts = {"nchw": prob.sets, "nhwc": prob.channels_last()}
            fwd = prob.eager_fn()
            for peer, mf in peer_plan(case):
                rec = {"case": case["id"], "peer": peer, "layout": mf, "nsets": nsets, "set_bytes": case["bytes"],
                       "warmup": catalogue.WARMUP, "iters": catalogue.ITERS}
                try:
                    sets = layouts[mf]
                    if peer == "cudnn_fused":
                        fsets, fn = cudnn_fused_peer(cudnn_fused, prob, sets)
                        r = run_forward_peer(torch, fsets, fn, catalogue.WARMUP, catalogue.ITERS, ref)
                        if case["family"] == "cbna":
                            rec["note"] = "BN folded into w, b (untimed)"
                    elif case["family"] == "na_bwd_training":
                        r = run_backward_peer(torch, sets, fwd, catalogue.WARMUP, catalogue.ITERS, ref)
                    else:
                        r = run_forward_peer(torch, sets, fwd, catalogue.WARMUP, catalogue.ITERS, ref)
                    rec.update(r, status="ok")
                except Exception as e:  # noqa: BLE001
                    msg = f"{type(e).__name__}: {e}".splitlines()[0][:500]
                    rec.update(status="unsupported" if "not supported" in msg.lower() or "NOT_SUPPORTED" in msg
                               else "error", note=msg)
                emit(fh, rec)
            del prob, layouts, ref
            torch.cuda.empty_cache()
            log(f"{idx + 1}/{len(cases)} {case['id']} ({now() - tc:.1f} s)")
    return 0


def cmd_profile(a) -> int:
    torch = torch_setup()
    by_id = {c["id"]: c for c in catalogue.case_dicts(catalogue.set_cases("full"))}
    if a.case not in by_id:
        raise SystemExit(f"peers.py profile: no case '{a.case}' in the full set (cases.py --list full)")
    case = by_id[a.case]
    if a.peer == "cudnn_fused" and case["family"] not in ("cba", "cbna"):
        raise SystemExit(f"peers.py profile: {a.case} has no convolution for cuDNN's fused call")
    prob = Problem(torch, case, 1)
    sets = prob.channels_last() if a.layout == "nhwc" else prob.sets
    if a.peer == "cudnn_fused":
        fsets, fn = cudnn_fused_peer(cudnn_fused_call(torch), prob, sets)
        call = lambda: fn(fsets[0])  # noqa: E731
    else:
        fwd = prob.eager_fn()
        call = lambda: fwd(fresh_stats(sets[0]))  # noqa: E731
    for _ in range(catalogue.WARMUP):
        call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("peer")
    for _ in range(a.calls):
        call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    log(f"profile: {a.case} {a.peer} {a.layout}, {a.calls} calls in the NVTX range 'peer'")
    return 0


# ---- compile: torch.compile workers ------------------------------------------------------------

COMPILE_MODES = ("max-autotune-no-cudagraphs", "default")


def compile_one(torch, case: dict, l2: int) -> dict:
    nsets = rotation_sets(case["bytes"], l2)
    prob = Problem(torch, case, nsets)
    ref = reference_or_none(prob)
    sets = prob.channels_last() if case["layout"] == "nhwc" else prob.sets
    f, names = prob.compile_target()
    rec = {"case": case["id"], "peer": "compile", "layout": case["layout"], "nsets": nsets,
           "set_bytes": case["bytes"], "warmup": catalogue.WARMUP, "iters": catalogue.ITERS}
    notes = []
    for mode in COMPILE_MODES:
        torch._dynamo.reset()
        try:
            cf = torch.compile(f, mode=mode, fullgraph=True)
            args = lambda s: [s[k] for k in names]  # noqa: E731
            t0 = now()
            if case["family"] == "na_bwd_training":
                fwd = lambda s: cf(*args(s))  # noqa: E731
                # The first forward and backward compile here, with the same inputs requiring
                # grad as in run_backward_peer (so the timed graphs do not recompile).
                s0 = fresh_stats(sets[0])
                ins = [s0[k].detach().requires_grad_(True) for k in ("x", "gamma", "beta")]
                y = fwd(dict(s0, x=ins[0], gamma=ins[1], beta=ins[2]))
                torch.autograd.grad(y, ins, s0["dy"])
                del y, ins
                torch.cuda.synchronize()
                rec["compile_s"] = now() - t0
                r = run_backward_peer(torch, sets, fwd, catalogue.WARMUP, catalogue.ITERS, ref)
            else:
                out = cf(*args(fresh_stats(sets[0])))
                torch.cuda.synchronize()
                rec["compile_s"] = now() - t0
                del out
                r = run_forward_peer(torch, sets, lambda s: cf(*args(s)), catalogue.WARMUP,
                                     catalogue.ITERS, ref)
            rec.update(r, status="ok", mode=mode)
            break
        except Exception as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            notes.append(f"mode={mode} failed: {msg}")
            rec.update(status="error", mode=mode)
    if notes:
        rec["note"] = "; ".join(notes) + ("; fell back to mode=default" if rec["status"] == "ok" else "")
    torch._dynamo.reset()
    del prob, sets
    torch.cuda.empty_cache()
    return rec


def cmd_compile_worker(a) -> int:
    torch = torch_setup()
    import torch._dynamo  # noqa: F401 - torch._dynamo.reset() in compile_one
    import torch._functorch.config
    # The backward timing replays one graph (retain_graph=True), which AOTAutograd's donated
    # buffers forbid; donation only saves memory.
    torch._functorch.config.donated_buffer = False
    cases = {c["id"]: c for c in json.loads(Path(a.cases).read_text())}
    l2 = device_info(torch)["l2_bytes"] or DEFAULT_L2
    progress = open(a.progress, "a")
    with open(a.out, "a") as fh:
        for cid in a.ids.split(","):
            if a.deadline and a.deadline - now() < a.min_case_s:
                break  # the parent records the rest as skipped
            progress.write(f"begin {cid} {now()}\n")
            progress.flush()
            try:
                rec = compile_one(torch, cases[cid], l2)
            except Exception as e:  # noqa: BLE001
                rec = {"case": cid, "peer": "compile", "status": "error",
                       "note": f"{type(e).__name__}: {e}".splitlines()[0][:500]}
                traceback.print_exc()
            emit(fh, rec)
            progress.write(f"end {cid} {now()}\n")
            progress.flush()
            log(f"compile {cid}: {rec.get('status')} {rec.get('mode', '')} "
                f"compile {rec.get('compile_s', 0):.1f} s, median {rec.get('median_us', float('nan')):.1f} us")
    return 0


def compile_order(cases: list[dict]) -> list[str]:
    """Headline cases first, then the fp16/bf16 convs (the best-peer targets need them), then
    the BN cases, then fp32 convs (max-autotune is slowest there, and the fp32 target compares
    with cuDNN only)."""
    def rank(c):
        conv = c["family"] in ("cba", "cbna")
        if c.get("headline") and not (conv and c["dtype"] == "fp32"):
            return 0
        if conv and c["dtype"] != "fp32":
            return 1
        return 2 if not conv else 3
    return [c["id"] for c in sorted(cases, key=rank)]  # stable: set order within a rank


def read_progress(path: Path) -> list[tuple[str, str, float]]:
    """The worker's "begin|end CASE EPOCH" lines; a line still being written is skipped."""
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] in ("begin", "end"):
                try:
                    rows.append((parts[0], parts[1], float(parts[2])))
                except ValueError:
                    pass
    return rows


def cmd_compile(a) -> int:
    """Runs workers over the cases; kills a worker whose case overruns --case-timeout or the
    deadline, records it and starts the next worker on the remaining cases."""
    cases = json.loads(Path(a.cases).read_text())
    todo = compile_order(cases)
    tmp = Path(tempfile.mkdtemp(prefix="bench-compile-"))
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor"), TRITON_CACHE_DIR=str(tmp / "triton"))
    out = open(a.out, "a")
    for round_no in range(len(todo)):  # each round ends one case at least, or the loop
        remaining = (a.deadline - now()) if a.deadline else float("inf")
        if not todo or remaining < a.min_case_s:
            break
        progress = tmp / f"progress.{round_no}"
        cmd = [sys.executable, str(Path(__file__).resolve()), "compile-worker", "--cases", a.cases,
               "--out", a.out, "--progress", str(progress), "--ids", ",".join(todo),
               "--deadline", str(a.deadline), "--min-case-s", str(a.min_case_s)]
        proc = subprocess.Popen(cmd, env=env, start_new_session=True)
        current, since, killed, started = None, now(), None, False
        while proc.poll() is None:
            time.sleep(0.5)
            for kind, cid, t in read_progress(progress):
                started = True
                if kind == "begin":
                    current, since = cid, float(t)
                elif kind == "end":
                    if cid in todo:
                        todo.remove(cid)
                    current = None if current == cid else current
            budget_left = (a.deadline - now()) if a.deadline else float("inf")
            if current is not None and (now() - since > a.case_timeout or budget_left <= 0):
                killed = "per-case timeout" if now() - since > a.case_timeout else "time budget spent"
            elif current is None and budget_left <= 0:
                killed = "time budget spent"
            if killed:
                os.killpg(proc.pid, signal.SIGKILL)  # the worker and its compile subprocesses
                proc.wait()
                break
        # Account for what the worker finished after the last poll.
        for kind, cid, _ in read_progress(progress):
            started = True
            if kind == "end" and cid in todo:
                todo.remove(cid)
        if killed and current is not None and current in todo:
            emit(out, {"case": current, "peer": "compile", "status": "timeout", "layout": None,
                       "note": f"{killed} after {now() - since:.0f} s (limit {a.case_timeout:.0f} s)"})
            log(f"compile {current}: killed ({killed})")
            todo.remove(current)
        elif not killed and proc.returncode == 0:
            break  # finished, or stopped at the deadline: what is left is skipped below
        elif not killed:
            # The worker died on its own (a crash in a case): record the case it was on.
            if current is not None and current in todo:
                emit(out, {"case": current, "peer": "compile", "status": "error",
                           "note": f"worker exited with {proc.returncode}"})
                todo.remove(current)
            elif not started:
                for cid in todo:
                    emit(out, {"case": cid, "peer": "compile", "status": "error",
                               "note": f"compile worker failed to start (exit {proc.returncode})"})
                todo = []
    for cid in todo:
        emit(out, {"case": cid, "peer": "compile", "status": "skipped", "note": "time budget spent"})
    if todo:
        log(f"compile: {len(todo)} cases skipped (time budget)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--cases", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--ceilings", required=True)
    m.add_argument("--deadline", type=float, default=0.0, help="epoch seconds; 0: none")
    m.add_argument("--min-case-s", type=float, default=4.0)
    c = sub.add_parser("compile")
    c.add_argument("--cases", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--deadline", type=float, default=0.0)
    c.add_argument("--case-timeout", type=float, default=90.0)
    c.add_argument("--min-case-s", type=float, default=15.0)
    w = sub.add_parser("compile-worker")
    w.add_argument("--cases", required=True)
    w.add_argument("--out", required=True)
    w.add_argument("--progress", required=True)
    w.add_argument("--ids", required=True)
    w.add_argument("--deadline", type=float, default=0.0)
    w.add_argument("--min-case-s", type=float, default=15.0)
    p = sub.add_parser("profile")
    p.add_argument("--case", required=True, help="a case id (cases.py --list full)")
    p.add_argument("--peer", choices=("cudnn_fused", "eager"), default="cudnn_fused")
    p.add_argument("--layout", choices=("nhwc", "nchw"), default="nhwc")
    p.add_argument("--calls", type=int, default=3)
    a = ap.parse_args(argv)
    return {"measure": cmd_measure, "compile": cmd_compile, "compile-worker": cmd_compile_worker,
            "profile": cmd_profile}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
