#!/bin/sh
# A bounded fuzz run: run_fuzzer.sh FUZZER WORK_DIR ARTIFACT_PREFIX [libFuzzer flags...] [seed dirs...]
#
# Phase 1 fuzzes with libFuzzer's per-input leak check off (-detect_leaks=0): hipfuse keeps
# destroyed objects in a quarantine whose deque allocates and frees in blocks, so nearly
# every input would look unbalanced and trigger a full heap scan (10x slower). LeakSanitizer
# still checks the whole run at exit. Phase 2 replays the inputs phase 1 added to WORK_DIR,
# each with the per-input leak check, so a leak is pinned to an input.
#
# New interesting inputs go to WORK_DIR (kept between runs, so CI may cache it); a crash,
# leak, timeout or out-of-memory input is written as ARTIFACT_PREFIX<kind>-<sha1>, and the
# run fails. To turn such a file into a regression test, copy it into
# tests/fuzz/regressions/<target>/ (the unit tests and <target>_replay replay that folder).
set -eu
fuzzer=$1 work=$2 prefix=$3
shift 3
mkdir -p "$work" "$(dirname "$prefix")"
flags=""
dirs=""
for arg in "$@"; do
  case $arg in
    -*) flags="$flags $arg" ;;
    *) [ -d "$arg" ] && dirs="$dirs $arg" ;;
  esac
done
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
# run_logged LOG COMMAND...: COMMAND's output (a line per new input) goes to LOG, since test
# logs keep only their start; if it fails, the end of LOG, with the verdict, is shown.
run_logged() {
  log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 100 "$log"
    echo "run_fuzzer.sh: $1 failed; its whole output is in $log"
    exit 1
  fi
}
# WORK_DIR first, so that libFuzzer writes new inputs there only.
# shellcheck disable=SC2086
run_logged "$work.log" "$fuzzer" -artifact_prefix="$prefix" -detect_leaks=0 $flags "$work" $dirs
tail -n 12 "$work.log"
new=$(find "$work" -type f -newer "$stamp" | wc -l)
echo "run_fuzzer.sh: replaying the $new new inputs with the per-input leak check"
[ "$new" -eq 0 ] && exit 0
find "$work" -type f -newer "$stamp" -print0 |
  run_logged "$work.replay.log" xargs -0 "$fuzzer" -artifact_prefix="$prefix" -detect_leaks=1 -timeout=60 -rss_limit_mb=4096
