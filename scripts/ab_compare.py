#!/usr/bin/env python3
"""Time builds (or kernel sources) of hipfuse against each other, case by case, in one run.

    scripts/ab_compare.py --out DIR --variant base=old/fusiondriver --variant new=build/fusiondriver \\
        [--variant src=build/fusiondriver:path/to/kernels] [--env new:VAR=VALUE] [--rounds 2] \\
        specs/perf/na_fwd_training_fp32_nchw.toml:c2048 specs/perf/cba_fp16_nhwc.toml [-- driver args]

Each SPEC[:FILTER] runs once per variant per round (`fusiondriver run SPEC --filter FILTER
--gap-us 50 --verify sample --format csv`, then the arguments after `--`), the variants in the
given order on odd rounds and in reverse on even ones, so that neither side always runs first
on a warmer or cooler card. A variant is NAME=DRIVER, or NAME=DRIVER:KERNEL_DIR to compile the
kernels from other sources (HIPFUSE_KERNEL_DIR) with the same build; --env NAME:VAR=VALUE sets a
variable for one variant's runs (and unsets it for the others'). Every output is checked
(sampled) as the driver does; the CSVs land in DIR, and DIR/summary.md (rewritten after every
run, so a run cut short keeps what finished) has a row per case: each variant's median per
round and its mean over the rounds as a ratio to the first variant's. Exit status 0 when every
case of every run PASSED, 1 otherwise.
"""
import argparse
import collections
import csv
import os
import pathlib
import subprocess
import sys
import time

DEFAULT_RUN_ARGS = ["--gap-us", "50", "--verify", "sample"]


def parse_variant(text):
    name, _, rest = text.partition("=")
    driver, _, kernels = rest.partition(":")
    if not name or not driver:
        raise argparse.ArgumentTypeError(f"a variant is NAME=DRIVER[:KERNEL_DIR], not '{text}'")
    return name, driver, kernels or None


def parse_env(text):
    name, _, assignment = text.partition(":")
    var, eq, value = assignment.partition("=")
    if not name or not var or not eq:
        raise argparse.ArgumentTypeError(f"an --env is NAME:VAR=VALUE, not '{text}'")
    return name, var, value


def item_labels(items):
    """A CSV name prefix per SPEC[:FILTER] item: the spec's stem, then _2, _3, ... for its later
    items (one spec given twice with two filters would otherwise overwrite its own CSVs)."""
    seen, labels = collections.Counter(), []
    for item in items:
        stem = pathlib.Path(item.partition(":")[0]).stem
        seen[stem] += 1
        labels.append(stem if seen[stem] == 1 else f"{stem}_{seen[stem]}")
    return labels


def csv_name(label, variant, round_):
    return f"{label}_{variant}_r{round_}.csv"


def read_medians(out, runs):
    """{case: {(variant, round): (status, median_us)}} from the runs' CSVs that exist."""
    table = collections.OrderedDict()
    for label, variant, round_ in runs:
        path = out / csv_name(label, variant, round_)
        if not path.exists():
            continue
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                median = float(row["median_us"]) if row.get("median_us") else float("nan")
                table.setdefault(row["name"], {})[(variant, round_)] = (row.get("status", "?"), median)
    return table


def summary(table, variants, rounds):
    """Markdown: a row per case, each variant's medians and their mean's ratio to the first's."""
    names = [v[0] for v in variants]
    head = ["case"] + [f"{n} (us)" for n in names] + [f"{n} / {names[0]}" for n in names[1:]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, cells in table.items():
        means, row = {}, [case]
        for n in names:
            got = [cells[(n, r)] for r in range(1, rounds + 1) if (n, r) in cells]
            means[n] = sum(t for _, t in got) / len(got) if got else None
            row.append(", ".join(f"{t:.1f}" + ("" if s == "PASSED" else f" {s}") for s, t in got) or "-")
        for n in names[1:]:
            base, mine = means[names[0]], means[n]
            row.append(f"{mine / base:.3f}" if base and mine is not None else "-")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="directory for the CSVs and summary.md")
    parser.add_argument("--variant", action="append", type=parse_variant, required=True,
                        help="NAME=DRIVER[:KERNEL_DIR]; the first is the one the others are compared with")
    parser.add_argument("--env", action="append", type=parse_env, default=[],
                        help="NAME:VAR=VALUE: VAR=VALUE for variant NAME's runs, unset for the others'")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120, help="seconds a driver run may take")
    parser.add_argument("specs", nargs="+", help="SPEC[:FILTER] (the filter: a regex over case names)")
    args, extra = parser.parse_args(argv[:cut]), argv[cut + 1:]
    if len({v[0] for v in args.variant}) != len(args.variant):
        parser.error("variant names must differ")
    if any(name not in {v[0] for v in args.variant} for name, _, _ in args.env):
        parser.error("--env names a variant that is not given")

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    done, failed = [], False
    labels = item_labels(args.specs)
    for round_ in range(1, args.rounds + 1):
        order = args.variant if round_ % 2 else list(reversed(args.variant))
        for item, label in zip(args.specs, labels):
            spec, _, case_filter = item.partition(":")
            for name, driver, kernels in order:
                command = [driver, "run", spec, *(["--filter", case_filter] if case_filter else []), *DEFAULT_RUN_ARGS,
                           *extra, "--format", "csv", "--out", str(out / csv_name(label, name, round_))]
                env = dict(os.environ)
                for var in {"HIPFUSE_KERNEL_DIR", *(var for _, var, _ in args.env)}:
                    env.pop(var, None)
                if kernels:
                    env["HIPFUSE_KERNEL_DIR"] = kernels
                env.update({var: value for owner, var, value in args.env if owner == name})
                start = time.monotonic()
                try:
                    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.timeout)
                    rc, said = run.returncode, (run.stdout + run.stderr).strip().splitlines()
                except subprocess.TimeoutExpired:
                    rc, said = "timeout", []
                print(f"ab_compare: round {round_} {name} {item}: rc {rc}, {time.monotonic() - start:.0f} s", flush=True)
                if rc != 0 and said:
                    print(f"ab_compare:   {said[-1]}", flush=True)
                failed |= rc != 0
                done.append((label, name, round_))
                table = read_medians(out, done)
                (out / "summary.md").write_text(summary(table, args.variant, args.rounds))
    table = read_medians(out, done)
    print(summary(table, args.variant, args.rounds), end="")
    failed |= any(status != "PASSED" for cells in table.values() for status, _ in cells.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
