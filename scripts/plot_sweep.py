#!/usr/bin/python3
"""Plots fused vs unfused times from a fusiondriver CSV (scripts/sweep.sh, or any
`fusiondriver run --format csv`) into a PNG.

One line per case series: fused median (median_us), unfused baseline (baseline_us, when the
run had --baseline unfused) and any peer column present (a column named peer_<name>_us, e.g.
peer_cudnn_us added by a comparison script), against the x column (default: sweep_value, the
value scripts/sweep.sh swept; else the row index). A second panel shows the fusion speedup
when baseline times are present. Failed / unsupported rows are left out (and counted).

  scripts/plot_sweep.py sweep.csv [-o sweep.png] [--x sweep_value] [--title TEXT] [--log]

Uses Debian's python3-matplotlib (Agg backend: no display needed).
"""
import argparse
import csv
import math
import re
import sys
from collections import OrderedDict


def number(text):
    try:
        v = float(text)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def x_value(text):
    """Numbers plot as numbers; lists like [8,64,56,56] by their product; else as categories."""
    v = number(text)
    if v is not None:
        return v
    ints = re.findall(r"-?\d+", text or "")
    if text and text.strip().startswith("[") and ints:
        p = 1
        for i in ints:
            p *= int(i)
        return float(p)
    return None


def series_name(row, x_column):
    """The case name without the swept key's own component."""
    name = row.get("name", "")
    key = row.get("sweep_key", "")
    if key:
        name = "/".join(part for part in name.split("/") if not part.startswith(key + "="))
    return name or "case"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="fusiondriver CSV records")
    ap.add_argument("-o", "--out", default=None, help="PNG to write (default: the CSV name with .png)")
    ap.add_argument("--x", default="sweep_value", help="column for the x axis (default: sweep_value)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--log", action="store_true", help="logarithmic axes")
    args = ap.parse_args(argv)

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"plot_sweep.py: no records in {args.csv}", file=sys.stderr)
        return 1
    columns = rows[0].keys()
    peers = [c for c in columns if re.fullmatch(r"peer_.+_us", c)]
    have_x = args.x in columns

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    skipped = 0
    data = OrderedDict()  # series -> list of (x, label, fused, unfused, peers...)
    categories = OrderedDict()
    for i, row in enumerate(rows):
        fused = number(row.get("median_us"))
        if row.get("status") not in ("PASSED", "EXECUTED", "MISTRUSTED") or fused is None:
            skipped += 1
            continue
        label = row.get(args.x, "") if have_x else str(i)
        x = x_value(label)
        if x is None:
            x = categories.setdefault(label, float(len(categories)))
        point = (x, label, fused, number(row.get("baseline_us")), [number(row.get(p)) for p in peers])
        data.setdefault(series_name(row, args.x), []).append(point)
    if not data:
        print(f"plot_sweep.py: no timed rows to plot ({skipped} failed or unsupported)", file=sys.stderr)
        return 1

    has_baseline = any(p[3] is not None for pts in data.values() for p in pts)
    fig, axes = plt.subplots(2 if has_baseline else 1, 1, figsize=(10, 8 if has_baseline else 5), squeeze=False)
    ax = axes[0][0]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for n, (name, points) in enumerate(data.items()):
        points.sort(key=lambda p: p[0])
        xs = [p[0] for p in points]
        color = colors[n % len(colors)]
        ax.plot(xs, [p[2] for p in points], "o-", color=color, label=f"{name} fused")
        if any(p[3] is not None for p in points):
            ax.plot(xs, [p[3] for p in points], "s--", color=color, alpha=0.7, label=f"{name} unfused")
        for j, peer in enumerate(peers):
            ys = [p[4][j] for p in points]
            if any(y is not None for y in ys):
                ax.plot(xs, ys, "^:", color=color, alpha=0.6, label=f"{name} {peer[5:-3]}")
    ax.set_ylabel("median time per execution (us)")
    ax.set_xlabel(args.x if have_x else "record")
    if args.log:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
    if categories:
        ax.set_xticks(list(categories.values()))
        ax.set_xticklabels(list(categories.keys()), rotation=30, ha="right")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(args.title or f"fused vs unfused: {rows[0].get('sweep_key', args.csv)}")

    if has_baseline:
        sx = axes[1][0]
        for n, (name, points) in enumerate(data.items()):
            pts = [p for p in points if p[3] is not None and p[2] > 0]
            if pts:
                sx.plot([p[0] for p in pts], [p[3] / p[2] for p in pts], "o-", color=colors[n % len(colors)], label=name)
        sx.axhline(1.0, color="gray", linewidth=1)
        sx.set_ylabel("speedup (unfused / fused)")
        sx.set_xlabel(args.x if have_x else "record")
        if args.log:
            sx.set_xscale("log", base=2)
        if categories:
            sx.set_xticks(list(categories.values()))
            sx.set_xticklabels(list(categories.keys()), rotation=30, ha="right")
        sx.grid(True, alpha=0.3)
        sx.legend(fontsize="small")

    fig.tight_layout()
    out = args.out or re.sub(r"\.csv$", "", args.csv) + ".png"
    fig.savefig(out, dpi=120)
    print(f"plot_sweep.py: wrote {out} ({sum(len(v) for v in data.values())} points, {skipped} rows skipped)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
