#!/usr/bin/env bash
# Sweeps one spec key over a list of values with fusiondriver and appends the records to a CSV
# (one header), ready for scripts/plot_sweep.py. Each point is `fusiondriver run SPEC
# --set KEY=VALUE --format csv`, tagged with the columns sweep_key and sweep_value; with -b the
# same run also times the unfused baseline (--baseline unfused: baseline_us, speedup columns).
#
#   scripts/sweep.sh [options] SPEC KEY VALUE... [-- extra fusiondriver run arguments]
#     -o FILE     CSV to append to (default: sweep.csv; created with a header when absent)
#     -d DRIVER   the fusiondriver binary (default: $FUSIONDRIVER, build/fusiondriver, or PATH)
#     -b          also run the unfused baseline
#     -n          print the commands instead of running them
#
# Examples:
#   scripts/sweep.sh -b -o k.csv specs/examples/cba.toml op.0.k 32 64 128 256 512
#   scripts/sweep.sh -o n.csv specs/perf/headline.toml input '[1,64,56,56]' '[8,64,56,56]' -- --filter fp16
#   scripts/plot_sweep.py k.csv -o k.png
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

out=sweep.csv
driver=${FUSIONDRIVER:-}
baseline=()
dry_run=0
while getopts "o:d:bnh" opt; do
  case $opt in
    o) out=$OPTARG ;;
    d) driver=$OPTARG ;;
    b) baseline=(--baseline unfused) ;;
    n) dry_run=1 ;;
    h) usage 0 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
(($# >= 3)) || usage

spec=$1
key=$2
shift 2
values=()
while (($#)) && [[ $1 != -- ]]; do
  values+=("$1")
  shift
done
[[ ${1:-} == -- ]] && shift
extra=("$@")
((${#values[@]})) || usage

if [[ -z $driver ]]; then
  here=$(cd "$(dirname "$0")/.." && pwd)
  if [[ -x $here/build/fusiondriver ]]; then driver=$here/build/fusiondriver
  else driver=$(command -v fusiondriver || true)
  fi
fi
if ((!dry_run)) && [[ ! -x $driver ]]; then
  echo "sweep.sh: fusiondriver not found (build it, or pass -d / set FUSIONDRIVER)" >&2
  exit 2
fi
[[ -f $spec ]] || { echo "sweep.sh: no such spec: $spec" >&2; exit 2; }

status=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for value in "${values[@]}"; do
  cmd=("$driver" run "$spec" --set "$key=$value" --format csv --out "$tmp" --no-progress
       --tag "sweep_key=$key" --tag "sweep_value=$value" "${baseline[@]}" "${extra[@]}")
  if ((dry_run)); then
    printf '%q ' "${cmd[@]}"
    echo
    continue
  fi
  echo "sweep.sh: $key=$value" >&2
  rc=0
  "${cmd[@]}" || rc=$?
  if ((rc == 2 || rc == 3)); then  # bad spec / no GPU: nothing ran, stop here
    exit "$rc"
  fi
  ((rc == 0)) || status=$rc
  if [[ -s $tmp ]]; then
    if [[ -s $out ]]; then
      # Same columns as the file already holds: append the rows (the header is line 1 and
      # never holds a newline; rows may, inside quoted fields).
      if [[ $(head -n 1 "$tmp") != "$(head -n 1 "$out")" ]]; then
        echo "sweep.sh: $out has other columns than this run's CSV; use another -o" >&2
        exit 2
      fi
      tail -n +2 "$tmp" >> "$out"
    else
      cat "$tmp" > "$out"
    fi
  fi
done
((dry_run)) || echo "sweep.sh: records appended to $out" >&2
exit "$status"
