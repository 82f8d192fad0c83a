#!/usr/bin/env bash
# The perf benchmark: hipfuse (fused, and its unfused baseline) against cuDNN's fused call, eager
# PyTorch and torch.compile on the perf spec set (specs/perf), on the GPU machine, within a budget.
# Details: scripts/bench/README.md; the method is written into the report (docs/PERF.md).
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: scripts/bench.sh BUILD_DIR OUT_DIR [--quick | --full | --set NAME] [--budget SECONDS]
                        [--compile-case-timeout S] [--skip hipfuse|peers|compile] [--md PATH]

  default set: 66 cases, budget 560 s (what the budget does not reach is listed as skipped)
  --set wide:  104 cases (about 12 min);  --quick: the 7 headline cases;  --set na: the 15 NA cases;
  --set nchw:  the 31 cases of 16-bit NCHW convolutions and NA training;
  --full:      all 336 cases (give it --budget 3600)

OUT_DIR gets PERF.md, summary.json, perf.csv and bench-raw.tar.gz (every raw record and log); the
report also goes to docs/PERF.md unless --md says otherwise. Regenerate it anywhere (stdlib only):
  python3 scripts/bench/report.py OUT_DIR --md docs/PERF.md
Needs BUILD_DIR/fusiondriver (or BUILD_DIR/driver/fusiondriver) and python3 with torch + CUDA.
On a copy of the tree (no .git, or a stale one), pass BENCH_COMMIT=<sha>[+dirty] to name the commit; it wins over git.
Give it the literal sha from the build machine: $(git rev-parse HEAD) on the copy reads its stale .git.
A page whose run recorded the wrong commit: report.py RAW --commit <sha> (the page shows both).
USAGE
}
if [[ $# -lt 2 || $1 == -* || $2 == -* ]]; then
  usage
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
export BENCH_COMMAND="scripts/bench.sh$(printf ' %q' "$@")"
export PYTHONUNBUFFERED=1
exec python3 "$here/bench/run.py" "$@"
