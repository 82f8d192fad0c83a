#!/usr/bin/env python3
"""The benchmark harness: one run on the GPU machine, inside a wall-clock budget.

    scripts/bench.sh BUILD_DIR OUT_DIR [--quick | --full | --set NAME] [--budget SECONDS] ...

Phases, each given a share of the time left (a phase that finishes early leaves its time to
the next ones; a phase past its deadline stops starting new work and says what it skipped):
  1. hipfuse: `fusiondriver run specs/perf/<file>.toml --baseline unfused --format jsonl --out ...
     --gap-us 50`
     per spec file of the set, with a cold kernel cache (MIOPEN_CUSTOM_CACHE_DIR = a fresh
     directory); then one file again without --baseline for the cache-hit compile times.
  2. peers:   the ceilings (matrix rates, copy bandwidth), then cuDNN's fused call and eager
     PyTorch, NCHW and channels-last, for every case of the set (scripts/bench/peers.py measure).
  3. torch.compile(mode="max-autotune-no-cudagraphs"), headline cases first, a per-case timeout.
  4. report:  scripts/bench/report.py OUT_DIR -> OUT_DIR/PERF.md, perf.csv, summary.json, and
     docs/PERF.md (unless --md says otherwise).
OUT_DIR ends up with four files (few enough to copy back from a GPU machine whole):
  PERF.md            the report;
  summary.json       the target verdicts;
  perf.csv           one row per case, every figure of the table;
  bench-raw.tar.gz   everything raw, under bench-raw/: env.json, cases.json, ceilings.json,
                     hipfuse/*.jsonl, peers.jsonl, compile.jsonl, run.json (phases, deadlines, what
                     was skipped), perf.csv, logs/. `report.py OUT_DIR/bench-raw.tar.gz` reads it.
(--keep-raw leaves the unpacked bench-raw/ folder too.)
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import cases as catalogue  # noqa: E402
from peers import SPACER_MIN_US  # noqa: E402

DEFAULT_BUDGET_S = 560       # the whole run, report included: fits a 10-minute call to the GPU machine
REPORT_RESERVE_S = 15        # kept back for the report and the last nvidia-smi
# Of the time left when the phase starts. The hipfuse phase compiles every kernel cold on the
# host CPU, whose speed varies from machine to machine (the default set took 230-330 s); the
# peers take ~35 s, and torch.compile uses what is left, headline cases first.
SHARE = {"hipfuse": 0.7, "peers": 0.5, "compile": 1.0}
LOG_TAIL_BYTES = 1_000_000
RAW = "bench-raw"            # the raw results folder inside OUT_DIR, and the tarball's name   # logs are cut to their last MB (OUT_DIR comes back over the wire)


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run_capture(cmd: list[str], timeout: float = 20) -> str | None:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.stdout.strip() if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


NVSMI_FIELDS = ("name,driver_version,pci.bus_id,memory.total,power.limit,power.draw,temperature.gpu,pstate,"
                "clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,"
                "clocks.applications.memory")


def gpu_snapshot() -> dict:
    """nvidia-smi's view of the card, as found (nothing is changed)."""
    snap: dict = {}
    fields = NVSMI_FIELDS.split(",")
    out = run_capture(["nvidia-smi", f"--query-gpu={NVSMI_FIELDS}", "--format=csv,noheader"])
    if out:
        vals = [v.strip() for v in out.splitlines()[0].split(",")]
        snap = dict(zip(fields, vals))
    else:
        snap["error"] = "nvidia-smi query failed or absent"
    ver = run_capture(["nvidia-smi", "--version"])
    if ver:
        snap["nvidia_smi_version"] = ver.splitlines()
    return snap


def cpu_model() -> str:
    """The host CPU's model name (Linux), for the host-side figures (plan compile, Execute's host time)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def git_info() -> dict:
    """The commit of the tree being measured. A copy of a working tree (the GPU machine's) may
    have no .git, or a stale one that names another commit: BENCH_COMMIT=<sha>[+dirty] in the
    environment names it then, and wins over what git says."""
    if os.environ.get("BENCH_COMMIT"):
        given = os.environ["BENCH_COMMIT"]
        return {"commit": given.split("+")[0], "dirty": given.endswith("+dirty"), "from": "BENCH_COMMIT"}
    rev = run_capture(["git", "-C", str(REPO), "rev-parse", "HEAD"])
    dirty = run_capture(["git", "-C", str(REPO), "status", "--porcelain"])
    return {"commit": rev, "dirty": None if dirty is None else bool(dirty)}


def find_driver(build_dir: Path) -> Path | None:
    for p in (build_dir / "fusiondriver", build_dir / "driver" / "fusiondriver", build_dir / "bin" / "fusiondriver"):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


def tail_file(path: Path, limit: int = LOG_TAIL_BYTES) -> None:
    if path.exists() and path.stat().st_size > limit:
        data = path.read_bytes()[-limit:]
        path.write_bytes(b"[... cut to the last %d bytes ...]\n" % limit + data)


class Clock:
    def __init__(self, budget: float):
        self.start = time.time()
        self.budget = budget

    def left(self) -> float:
        return self.start + self.budget - REPORT_RESERVE_S - time.time()

    def deadline(self, share: float) -> float:
        return time.time() + max(0.0, self.left()) * share


def run_process(cmd: list[str], log_path: Path, deadline: float, env: dict | None = None) -> dict:
    """Runs cmd in its own process group until it ends or the deadline passes (then kills the
    group). Output goes to log_path. Returns rc, seconds, timed_out."""
    t0 = time.time()
    timeout = max(1.0, deadline - t0)
    with open(log_path, "ab") as lf:
        lf.write(f"$ {shlex.join(cmd)}\n".encode())
        lf.flush()
        proc = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env, cwd=REPO,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
            timed_out = True
    tail_file(log_path)
    return {"rc": rc, "seconds": round(time.time() - t0, 2), "timed_out": timed_out}


def count_lines(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip()) if path.exists() else 0


# ---- phases --------------------------------------------------------------------------------------

def phase_hipfuse(a, clock: Clock, out: Path, files: list[str], run: dict) -> None:
    ph = run["phases"]["hipfuse"] = {"files": [], "skipped_files": []}
    driver = find_driver(Path(a.build_dir).resolve())
    if driver is None:
        ph["error"] = f"no fusiondriver under {a.build_dir} (looked in ., driver/, bin/)"
        log(ph["error"])
        return
    ph["driver"] = str(driver)
    deadline = clock.deadline(SHARE["hipfuse"])
    ph["deadline_s"] = round(deadline - clock.start, 1)
    cache = Path(tempfile.mkdtemp(prefix="hipfuse-kcache-"))
    env = dict(os.environ, MIOPEN_CUSTOM_CACHE_DIR=str(cache))  # cold: a fresh disk cache
    ph["kernel_cache"] = str(cache)
    (out / "hipfuse").mkdir(exist_ok=True)
    for i, stem in enumerate(files):
        if time.time() >= deadline - 2:
            ph["skipped_files"] = files[i:]
            log(f"hipfuse: time budget spent, skipping {len(files) - i} spec files: {', '.join(files[i:])}")
            break
        spec = REPO / "specs" / "perf" / f"{stem}.toml"
        jl = out / "hipfuse" / f"{stem}.jsonl"
        # The peers' timing rule: the GPU idles before each timed call (they spin at least
        # SPACER_MIN_US; Execute's host time is far below the 1/3 of that which would lengthen it).
        cmd = [str(driver), "run", str(spec.relative_to(REPO)), "--baseline", "unfused", "--format", "jsonl",
               "--out", str(jl), "--gap-us", f"{SPACER_MIN_US:g}"] + a.driver_arg
        r = run_process(cmd, out / "logs" / f"hipfuse_{stem}.log", deadline, env)
        r.update(file=stem, records=count_lines(jl), cases=len(catalogue.spec_file(stem).cases), command=shlex.join(cmd))
        ph["files"].append(r)
        log(f"hipfuse {stem}: rc {r['rc']}, {r['records']}/{r['cases']} records, {r['seconds']:.1f} s"
            + (" (killed at the deadline)" if r["timed_out"] else ""))
        if r["rc"] == 3:  # fusiondriver: no usable GPU; the other files would say the same
            ph["error"] = f"fusiondriver found no usable GPU (exit 3; logs/hipfuse_{stem}.log)"
            ph["skipped_files"] = files[i + 1:]
            log(ph["error"])
            break
    # Cache-hit compile times: the first spec file again in a new process (memory cache empty,
    # disk cache warm). Timing and verification cut down: only compile_ms / cache_hit matter.
    first = next((f["file"] for f in ph["files"] if f["records"]), None)
    if first and clock.left() > 60 and time.time() < deadline + 30:
        jl = out / "hipfuse" / "rerun_cache_hit.jsonl"
        spec = f"specs/perf/{first}.toml"
        cmd = [str(driver), "run", spec, "--format", "jsonl", "--out", str(jl),
               "--iters", "5", "--warmup", "1", "--verify", "off"] + a.driver_arg
        r = run_process(cmd, out / "logs" / "hipfuse_rerun.log", min(deadline + 30, time.time() + 60), env)
        r.update(file=first, records=count_lines(jl), command=shlex.join(cmd), purpose="cache-hit compile times")
        ph["rerun"] = r
        log(f"hipfuse rerun {first} (warm disk cache): rc {r['rc']}, {r['records']} records, {r['seconds']:.1f} s")
    shutil.rmtree(cache, ignore_errors=True)


def phase_peers(a, clock: Clock, out: Path, run: dict) -> None:
    deadline = clock.deadline(SHARE["peers"])
    ph = run["phases"]["peers"] = {"deadline_s": round(deadline - clock.start, 1)}
    cmd = [sys.executable, str(HERE / "peers.py"), "measure", "--cases", str(out / "cases.json"),
           "--out", str(out / "peers.jsonl"), "--ceilings", str(out / "ceilings.json"),
           "--deadline", f"{deadline:.1f}"]
    r = run_process(cmd, out / "logs" / "peers.log", deadline + 20)  # it stops itself at the deadline
    ph.update(r, records=count_lines(out / "peers.jsonl"))
    log(f"peers: rc {r['rc']}, {ph['records']} records, {r['seconds']:.1f} s")


def phase_compile(a, clock: Clock, out: Path, run: dict) -> None:
    deadline = clock.deadline(SHARE["compile"])
    ph = run["phases"]["compile"] = {"deadline_s": round(deadline - clock.start, 1),
                                     "case_timeout_s": a.compile_case_timeout}
    cmd = [sys.executable, str(HERE / "peers.py"), "compile", "--cases", str(out / "cases.json"),
           "--out", str(out / "compile.jsonl"), "--deadline", f"{deadline:.1f}",
           "--case-timeout", str(a.compile_case_timeout)]
    r = run_process(cmd, out / "logs" / "compile.log", deadline + 20)
    ph.update(r, records=count_lines(out / "compile.jsonl"))
    log(f"torch.compile: rc {r['rc']}, {ph['records']} records, {r['seconds']:.1f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dir")
    ap.add_argument("out_dir")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_const", dest="set", const="quick", help="the 7 headline cases")
    g.add_argument("--full", action="store_const", dest="set", const="full",
                   help="every case (needs a budget of about an hour)")
    g.add_argument("--set", dest="set", choices=sorted(catalogue.SETS))
    ap.set_defaults(set="default")
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S,
                    help=f"wall-clock seconds for the whole run (default {DEFAULT_BUDGET_S})")
    ap.add_argument("--compile-case-timeout", type=float, default=75.0,
                    help="seconds one torch.compile case may take, compile and timing (default 75)")
    ap.add_argument("--skip", action="append", default=[], choices=["hipfuse", "peers", "compile"],
                    help="leave a phase out (repeatable)")
    ap.add_argument("--md", default=str(REPO / "docs" / "PERF.md"),
                    help="where the report writes PERF.md besides OUT_DIR (default docs/PERF.md; '' for none)")
    ap.add_argument("--driver-arg", action="append", default=[], help="extra fusiondriver argument (repeatable)")
    ap.add_argument("--keep-raw", action="store_true", help="keep OUT_DIR/bench-raw/ besides the tarball")
    a = ap.parse_args(argv)

    clock = Clock(a.budget)
    final = Path(a.out_dir).resolve()
    out = final / RAW
    shutil.rmtree(out, ignore_errors=True)
    (out / "logs").mkdir(parents=True, exist_ok=True)
    files = catalogue.set_files(a.set)
    cases = catalogue.set_cases(a.set)
    (out / "cases.json").write_text(json.dumps(catalogue.case_dicts(cases), indent=1) + "\n")
    command = os.environ.get("BENCH_COMMAND") or shlex.join([sys.argv[0]] + (argv or sys.argv[1:]))
    env = {
        "date_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "command": command,
        "set": a.set,
        "spec_files": [f"specs/perf/{f}.toml" for f in files],
        "cases": len(cases),
        "budget_s": a.budget,
        "host": os.uname().nodename,
        "cpus": os.cpu_count(),
        "cpu_model": cpu_model(),
        "load_avg_1min": os.getloadavg()[0],
        "python": sys.version.split()[0],
        "git": git_info(),
        "gpu_before": gpu_snapshot(),
    }
    (out / "env.json").write_text(json.dumps(env, indent=1) + "\n")
    log(f"set '{a.set}': {len(cases)} cases in {len(files)} spec files; budget {a.budget:.0f} s; out {out}")
    g0 = env["gpu_before"]
    log(f"GPU: {g0.get('name')} driver {g0.get('driver_version')} SM {g0.get('clocks.sm')} "
        f"(max {g0.get('clocks.max.sm')}) mem {g0.get('clocks.mem')} power limit {g0.get('power.limit')}")

    run: dict = {"set": a.set, "budget_s": a.budget, "phases": {}}
    for f in ("peers.jsonl", "compile.jsonl"):
        (out / f).unlink(missing_ok=True)  # the peers append; start clean
    try:
        if "hipfuse" not in a.skip:
            phase_hipfuse(a, clock, out, files, run)
        if "peers" not in a.skip:
            phase_peers(a, clock, out, run)
        if "compile" not in a.skip:
            phase_compile(a, clock, out, run)
    finally:
        env["gpu_after"] = gpu_snapshot()
        (out / "env.json").write_text(json.dumps(env, indent=1) + "\n")
        run["elapsed_s"] = round(time.time() - clock.start, 1)
        (out / "run.json").write_text(json.dumps(run, indent=1) + "\n")
    rcmd = [sys.executable, str(HERE / "report.py"), str(out)] + (["--md", a.md] if a.md else [])
    rc = subprocess.call(rcmd)
    for name in ("PERF.md", "summary.json", "perf.csv"):
        if (out / name).exists():
            shutil.copy(out / name, final / name)
    with tarfile.open(final / f"{RAW}.tar.gz", "w:gz") as tf:
        tf.add(out, arcname=RAW)
    if not a.keep_raw:
        shutil.rmtree(out, ignore_errors=True)
    log(f"done in {time.time() - clock.start:.0f} s (budget {a.budget:.0f} s); report rc {rc}; "
        f"results in {final}: PERF.md, summary.json, perf.csv, {RAW}.tar.gz")
    return rc


if __name__ == "__main__":
    sys.exit(main())
