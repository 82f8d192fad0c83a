#!/usr/bin/env python3
"""The perf harness's work counts (scripts/bench/cases.py: the floors of docs/PERF.md) agree with
the driver's (driver/metrics.h: the GB/s and TFLOP/s it reports) on every perf case.

    test_work_counts.py --driver build/fusiondriver specs/perf/*.toml
"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "bench"))
import cases as catalogue  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("specs", nargs="+")
    a = ap.parse_args()
    out = subprocess.run([a.driver, "list", "--format", "jsonl", *a.specs], capture_output=True, text=True,
                         check=True).stdout
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    mismatches, compared = [], 0
    for r in records:
        case_id = r["name"].rsplit("/", 1)[-1]
        model = catalogue.ALL_CASES.get(case_id)
        if model is None:
            mismatches.append(f"{r['name']}: not in scripts/bench/cases.py")
            continue
        compared += 1
        for key, expected in (("bytes", model.bytes), ("flops", model.flops)):
            got = r.get(key)
            if got is None or abs(float(got) - expected) > 1e-9 * max(1.0, expected):
                mismatches.append(f"{r['name']}: {key} driver {got} harness {expected}")
    print(f"{compared} cases compared, {len(mismatches)} mismatches")
    for m in mismatches:
        print("  " + m)
    return 1 if mismatches or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
