#!/usr/bin/env python3
"""Run the cases of some spec files as parallel `fusiondriver` processes.

    scripts/run_parallel.py --driver build/fusiondriver --jobs 12 --out DIR \
        specs/ci/*.toml -- --baseline unfused --verify sample

The driver expands the specs into one self-contained command per case
(`fusiondriver list --format commands`); this script runs those commands JOBS at a time
(one GPU is shared; the CPU reference is what takes the time, and it is per process),
appends the arguments after `--` to each, and gathers the results:
  DIR/results.jsonl   one record per case (the driver's jsonl format)
  DIR/cases.log       each case's own output, in case order
  DIR/summary.md      a table per spec file: cases by status, fused-vs-unfused speedups
and prints that table, every case that did not pass with its repro command, and the count of
each status. Each case that does not pass is also printed as it finishes, and the progress
lines count the passed cases, so that a run cut short still shows where it stood. Exit status 0 when no case FAILED (or hit a compile error), 1 otherwise, 2 when
the cases could not be listed. The same command lines spread a sweep across several GPUs
(add `--device N`) or machines.
"""
import argparse
import collections
import concurrent.futures as futures
import json
import math
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile
import time

FAILING = {"FAILED", "COMPILE_ERROR", "ERROR"}


def list_commands(driver, specs):
    listed = subprocess.run([driver, "list", "--format", "commands", *specs],
                            capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"run_parallel: `{driver} list` failed:\n{listed.stderr.strip()}")
    return [line for line in listed.stdout.splitlines() if line.strip()]


def run_case(index, command, extra, scratch):
    record_file = scratch / f"case_{index:05d}.jsonl"
    repro = " ".join([command, *map(shlex.quote, extra)])
    full = f"{repro} --format jsonl --out {shlex.quote(str(record_file))} --no-progress"
    start = time.monotonic()
    done = subprocess.run(["bash", "-c", full], capture_output=True, text=True)
    records = []
    if record_file.exists():
        for line in record_file.read_text().splitlines():
            if line.strip():
                records.append(json.loads(line))
    return index, repro, done.returncode, done.stdout + done.stderr, records, time.monotonic() - start


def summary_table(records):
    """Markdown table, one row per spec file (the case name's prefix): statuses and speedups."""
    groups = collections.OrderedDict()
    for record in records:
        groups.setdefault(record.get("name", "?").split("/")[0], []).append(record)
    lines = ["| spec | cases | passed | failed | other | fused vs unfused: geomean (min-max) |",
             "|---|---|---|---|---|---|"]
    for spec, group in groups.items():
        statuses = collections.Counter(r.get("status", "?") for r in group)
        failed = sum(n for s, n in statuses.items() if s in FAILING)
        other = len(group) - statuses["PASSED"] - failed
        speedups = [r["speedup"] for r in group  # passed cases only: a wrong answer's speed means nothing
                    if r.get("status") == "PASSED" and isinstance(r.get("speedup"), (int, float)) and r["speedup"] > 0]
        speed = "-"
        if speedups:
            geomean = math.exp(sum(map(math.log, speedups)) / len(speedups))
            speed = f"{geomean:.2f}x ({min(speedups):.2f}-{max(speedups):.2f}, {len(speedups)} cases)"
        lines.append(f"| {spec} | {len(group)} | {statuses['PASSED']} | {failed} | {other} | {speed} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--driver", default="build/fusiondriver")
    parser.add_argument("--jobs", type=int, default=max(1, min(12, os.cpu_count() or 1)))
    parser.add_argument("--out", required=True, help="directory for results.jsonl and cases.log")
    parser.add_argument("specs", nargs="+", help="spec files (driver options for every case follow a --)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, extra = parser.parse_args(argv[:cut]), argv[cut + 1:]

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    commands = list_commands(args.driver, args.specs)
    print(f"run_parallel: {len(commands)} cases from {len(args.specs)} spec files, {args.jobs} at a time",
          flush=True)

    results = [None] * len(commands)
    started = time.monotonic()
    passed = 0  # cases so far whose every record PASSED: the progress lines say how a run cut short stood
    with tempfile.TemporaryDirectory() as tmp, futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = [pool.submit(run_case, i, c, extra, pathlib.Path(tmp)) for i, c in enumerate(commands)]
        for finished, job in enumerate(futures.as_completed(pending), 1):
            result = job.result()
            index, command, rc, _, records, _ = result
            results[index] = result
            if records and all(r.get("status") == "PASSED" for r in records):
                passed += 1
            else:  # at once, not only in the final report
                statuses = ",".join(r.get("status", "?") for r in records) or f"NO_RECORD (rc {rc})"
                print(f"run_parallel: case {index} {statuses}\n              repro: {command}", flush=True)
            if finished % 50 == 0 or finished == len(commands):
                print(f"run_parallel: {finished}/{len(commands)} done ({passed} passed), "
                      f"{time.monotonic() - started:.0f} s", flush=True)

    counts = collections.Counter()
    problems = []
    all_records = []
    with open(out / "results.jsonl", "w") as jsonl, open(out / "cases.log", "w") as log:
        for index, command, rc, output, records, seconds in results:
            log.write(f"### case {index} ({seconds:.1f} s, rc {rc})\n{output}\n")
            if not records:  # the process died before writing its record
                counts["NO_RECORD"] += 1
                problems.append(("NO_RECORD", f"case {index}", f"rc {rc}: {output.strip()[-300:]}", command))
                continue
            for record in records:
                all_records.append(record)
                jsonl.write(json.dumps(record) + "\n")
                status = record.get("status", "?")
                counts[status] += 1
                if status != "PASSED":
                    problems.append((status, record.get("name", "?"), record.get("reason", ""), command))

    table = summary_table(all_records)
    (out / "summary.md").write_text(table)
    print(table, end="")
    for status, name, reason, command in problems:
        print(f"{status:13} {name}  {reason}\n              repro: {command}")
    summary = ", ".join(f"{n} {s.lower()}" for s, n in sorted(counts.items()))
    print(f"run_parallel: {len(commands)} cases: {summary} ({time.monotonic() - started:.0f} s)")
    bad = sum(n for s, n in counts.items() if s in FAILING or s == "NO_RECORD")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
