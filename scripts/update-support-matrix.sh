#!/usr/bin/env bash
# Regenerates README.md's support matrix (between the support-matrix markers) from
# `fusiondriver support --format markdown`, or with --check only compares them.
#
#   scripts/update-support-matrix.sh [--check] [BUILD_DIR]     (BUILD_DIR defaults to build)
#
# The matrix comes from the solvers' applicability checks: no GPU, nothing compiled, a
# fraction of a second. --check exits 1 with a diff when README.md is out of date (CTest
# runs it as docs.support_matrix).
set -euo pipefail

check=0
if [[ ${1:-} == --check ]]; then
  check=1
  shift
fi
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
readme="$root/README.md"
begin='<!-- support-matrix:begin -->'
end='<!-- support-matrix:end -->'

driver="$build/fusiondriver"
if [[ ! -x $driver ]]; then
  echo "update-support-matrix: $driver not found: build first (scripts/setup.sh)" >&2
  exit 2
fi
if [[ $(grep -cxF "$begin" "$readme") != 1 || $(grep -cxF "$end" "$readme") != 1 ]]; then
  echo "update-support-matrix: README.md must hold each marker once, on its own line: $begin ... $end" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$driver" support --format markdown >"$tmp/matrix.md"

# README with the lines between the markers replaced by the generated matrix.
awk -v begin="$begin" -v end="$end" -v matrix="$tmp/matrix.md" '
  $0 == begin { print; print ""; while ((getline line < matrix) > 0) print line; print ""; skip = 1; next }
  $0 == end { skip = 0 }
  !skip { print }
' "$readme" >"$tmp/README.md"

if ((check)); then
  if ! diff -u "$readme" "$tmp/README.md" >"$tmp/diff"; then
    cat "$tmp/diff"
    echo "README.md's support matrix differs from \`fusiondriver support --format markdown\`." >&2
    echo "Regenerate it: scripts/update-support-matrix.sh $build" >&2
    exit 1
  fi
  echo "README.md's support matrix is up to date"
else
  if cmp -s "$readme" "$tmp/README.md"; then
    echo "README.md's support matrix is already up to date"
  else
    cp "$tmp/README.md" "$readme"
    echo "README.md's support matrix regenerated"
  fi
fi
