#!/usr/bin/env bash
# The whole GPU check in one call, on a machine with a GPU.
#
#   scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR] [--quick]
#
# Build on the build machine (scripts/setup.sh), copy the repository with its build
# directory to the GPU machine (optionally with a kernel cache pre-filled by
# `fusiondriver compile --arch sm_90 ...` and pointed to by MIOPEN_CUSTOM_CACHE_DIR), run
# this script there, and bring OUT_DIR back. Logs and machine-readable results land in
# OUT_DIR; the last lines printed are the summary.
set -uo pipefail

build=${1:-build}
out=${2:-out}
quick=${3:-}
mkdir -p "$out"
driver="$build/fusiondriver"
summary="$out/summary.txt"
: >"$summary"
status=0

note() { echo "$*" | tee -a "$summary"; }
step() {  # step NAME LOGFILE COMMAND...: run, log, record pass/fail
  local name=$1 log=$2
  shift 2
  echo "== $name: $*"
  local start=$SECONDS
  "$@" >"$out/$log" 2>&1
  local rc=$?
  local result="PASS"
  ((rc != 0)) && result="FAIL (rc=$rc)" && status=1
  note "$(printf '%-28s %-14s %4ds  %s' "$name" "$result" $((SECONDS - start)) "$(grep -E '(passed|failed)' "$out/$log" | tail -1)")"
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv >"$out/device.txt" 2>&1
note "device: $(tail -1 "$out/device.txt")"
note "date:   $(date -u +%Y-%m-%dT%H:%MZ)"

# 1. GPU unit suites (smoke test, fused kernels vs the CPU reference, graph capture, API).
step "gpu tests" gpu_tests.log "$build/tests/hipfuse_gpu_tests" --duration=true

# 2. The driver over every spec family, with the unfused baseline.
if [[ -x "$driver" ]]; then
  step "driver: ci specs" driver_ci.log "$driver" run specs/ci/*.toml --baseline unfused \
    --format jsonl --out "$out/ci.jsonl"
  step "driver: examples" driver_examples.log "$driver" run specs/examples/*.toml --baseline unfused
  step "driver: miopen tables" driver_tables.log "$driver" run specs/miopen_tables.toml --baseline unfused \
    --format jsonl --out "$out/miopen_tables.jsonl"
fi

# 3. The example app, linked against the installed package.
if [[ -x "$build/examples/conv_bias_relu" ]]; then
  step "example app" example.log "$build/examples/conv_bias_relu"
fi

# 4. Memory and race checking of the GPU suite (small cases).
if [[ -z "$quick" ]] && command -v compute-sanitizer >/dev/null; then
  step "memcheck" memcheck.log compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$build/tests/hipfuse_gpu_tests" --test-case-exclude='*large*,*timing*,*2^31*'
  step "racecheck" racecheck.log compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$build/tests/hipfuse_gpu_tests" --test-case-exclude='*large*,*timing*,*2^31*'
fi

echo
echo "==== summary ($out/summary.txt)"
cat "$summary"
exit $status
