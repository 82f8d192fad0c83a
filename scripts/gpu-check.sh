#!/usr/bin/env bash
# The whole GPU check in one call, on a machine with a GPU.
#
#   scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR] [--quick]
#
# STAGES (environment, comma-separated; default all) picks the stages:
#   tests     the GPU test binary (fused kernels vs the CPU reference, graph capture, API,
#             concurrency, out-of-memory, tensors past 2^31 elements)
#   validate  the validation matrix: the driver over specs/ci, specs/examples and
#             specs/miopen_tables.toml with the unfused baseline, every element checked
#   resnet    the ResNet-50 layer specs at batch 64 with the unfused baseline (sampled check)
#   perf      the perf spec set (specs/perf: conv layers as CBA/CBNA, NA families) with the
#             unfused baseline (sampled check); with validate and resnet, every spec in specs/
#   example   the example app built against the installed package
#   sanitize  compute-sanitizer memcheck and racecheck over the GPU tests (small cases)
#   sweep     (not in the default set) the implicit-GEMM tile sweep: every tile timed on the
#             reference layers, the data behind the tile heuristic
# SWEEP picks the sweep's test cases (a doctest -tc pattern; default every "igemm: tile sweep*").
# JOBS sets how many driver processes share the GPU (default: min(12, cores)); TEST_PROCS how
# many processes of the test binary (default 4); SANITIZE_PROCS how many processes each
# sanitizer runs its share of the test cases in (default 4; memcheck's and racecheck's run at
# the same time: the sanitizers' time is mostly on the CPU).
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
stages=",${STAGES:-tests,validate,resnet,perf,example,sanitize},"
jobs=${JOBS:-$(($(nproc) < 12 ? $(nproc) : 12))}
want() { [[ $stages == *",$1,"* ]]; }
here=$(cd "$(dirname "$0")" && pwd)
export PATH="$PATH:${CUDA_PATH:-/usr/local/cuda}/bin"  # compute-sanitizer
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
  note "$(printf '%-28s %-14s %4ds  %s' "$name" "$result" $((SECONDS - start)) \
    "$(grep -E '(passed|failed|run_parallel: .* cases:)' "$out/$log" | tail -1)")"
  return $rc
}

# The test binary's case names (doctest filters such as --test-case=... narrow the list), one a line.
list_test_cases() { "$@" --list-test-cases | grep -v -e '^\[doctest\]' -e '^====='; }

# A name made safe for a doctest filter, which splits at unescaped commas.
doctest_escape() {
  local escaped=${1//\\/\\\\}
  printf '%s' "${escaped//,/\\,}"
}

# Totals over test processes' logs (one without a totals line crashed or was killed), and the
# names of the test cases that reported an error, so that a summary line says which failed.
#   doctest_totals PROCESSES LOG...
doctest_totals() {
  local procs=$1
  shift
  awk -v procs="$procs" '
    function numbers(   f, n) { n = 0; for (f = 1; f <= NF; f++) if ($f ~ /^[0-9]+$/) v[++n] = $f }
    FNR == 1 { current = "" }
    /^TEST CASE:/ { current = $0; sub(/^TEST CASE: */, "", current) }
    / ERROR: / && current != "" && !(current in named) { named[current] = 1; names = names (names == "" ? "" : "; ") current }
    /^\[doctest\] test cases:/ { numbers(); cases += v[1]; passed += v[2]; failed += v[3]; logs++ }
    /^\[doctest\] assertions:/ { numbers(); asserts += v[1]; afailed += v[3] }
    END { printf "[doctest] %d of %d processes finished: test cases: %d | %d passed | %d failed; assertions: %d | %d failed%s\n",
          logs, procs, cases, passed, failed, asserts, afailed, (names == "" ? "" : "; failed: " names) }' "$@"
}

# The GPU test binary as TEST_PROCS processes at once (default 4: hipRTC compiles on the CPU),
# its test cases dealt round-robin, those past 2^31 elements in a process of their own (their
# CPU references take tens of GB of host memory), then the OOM tests alone (they fill the GPU).
# Each process logs to gpu_tests_*.log; the last line printed totals them.
run_gpu_tests() {
  local bin="$build/tests/hipfuse_gpu_tests" procs=${TEST_PROCS:-4} i=0 k pid name escaped
  local -a shard=() pids=()
  local large='' rc=0
  while IFS= read -r name; do
    escaped=$(doctest_escape "$name")
    case $name in
      oom*) ;;
      *2^31* | large:*) large+="${large:+,}$escaped" ;;
      *) k=$((i % procs)); shard[k]+="${shard[k]:+,}$escaped"; i=$((i + 1)) ;;
    esac
  done < <(list_test_cases "$bin")
  [[ -n $large ]] && shard[procs]=$large
  for k in "${!shard[@]}"; do
    stdbuf -oL "$bin" --duration=true --test-case="${shard[k]}" >"$out/gpu_tests_$k.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  stdbuf -oL "$bin" --duration=true --test-case='oom*' >"$out/gpu_tests_oom.log" 2>&1 || rc=1
  cat "$out"/gpu_tests_*.log
  doctest_totals $((${#pids[@]} + 1)) "$out"/gpu_tests_*.log
  return $rc
}

# The sanitizers over the GPU tests' small cases (every kernel family; the sanitizers slow
# kernels down 10-100x): memcheck's and racecheck's shares of the cases, SANITIZE_PROCS
# processes a tool, all at once. Each process logs to <tool>_<k>.log; the last lines printed
# are each tool's error summaries and totals.
run_sanitizers() {
  local bin="$build/tests/hipfuse_gpu_tests" procs=${SANITIZE_PROCS:-4} i=0 k tool name pid rc=0
  local cases='smoke*,api*,fused*,igemm: odd*,igemm: every tile*' skip='*large*,*timing*,*2^31*'
  local -a shard=() pids=() options
  while IFS= read -r name; do
    k=$((i % procs)); shard[k]+="${shard[k]:+,}$(doctest_escape "$name")"; i=$((i + 1))
  done < <(list_test_cases "$bin" --test-case="$cases" --test-case-exclude="$skip")
  for tool in memcheck racecheck; do
    options=(--tool "$tool" --error-exitcode 9)
    [[ $tool == memcheck ]] && options+=(--leak-check full)
    for k in "${!shard[@]}"; do
      stdbuf -oL compute-sanitizer "${options[@]}" "$bin" --test-case="${shard[k]}" >"$out/${tool}_$k.log" 2>&1 &
      pids+=($!)
    done
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  for tool in memcheck racecheck; do
    grep -h -E "(ERROR|RACECHECK|LEAK) SUMMARY" "$out/${tool}"_*.log
    echo -n "$tool: "
    doctest_totals "${#shard[@]}" "$out/${tool}"_*.log
  done
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv >"$out/device.txt" 2>&1
note "device: $(tail -1 "$out/device.txt")"
note "date:   $(date -u +%Y-%m-%dT%H:%MZ)"

# 1. GPU unit suites (smoke test, fused kernels vs the CPU reference, graph capture, API,
#    concurrency, out-of-memory, > 2^31 elements). Alone on the GPU: the OOM tests fill it.
# Line-buffered, so that a run cut short (a time limit, a hang) still leaves every finished
# test case's line in the log.
want tests && step "gpu tests" gpu_tests.log run_gpu_tests

# 2. The validation matrix: every case of the CI, example and MIOpen-table specs, fused and
#    unfused, each compared element by element with the CPU reference.
if want validate && [[ -x "$driver" ]]; then
  step "validation matrix" validate.log python3 "$here/run_parallel.py" --driver "$driver" --jobs "$jobs" \
    --out "$out/validate" specs/ci/*.toml specs/examples/*.toml specs/miopen_tables.toml -- --baseline unfused
fi

# 3. The ResNet-50 layers at batch 64 (CBA/CBNA conv layers, BN layers), fused and unfused;
#    a random sample of each output is checked (the full CPU reference takes minutes a case).
if want resnet && [[ -x "$driver" ]]; then
  step "resnet50 specs" resnet.log python3 "$here/run_parallel.py" --driver "$driver" --jobs "$jobs" \
    --out "$out/resnet" specs/resnet50/*.toml -- --baseline unfused --verify sample --warmup 2 --iters 5
fi

# 4. The perf spec set, as the benchmark runs it but with a sampled check (scripts/bench.sh
#    times these against the peers).
if want perf && [[ -x "$driver" ]]; then
  step "perf specs" perf.log python3 "$here/run_parallel.py" --driver "$driver" --jobs "$jobs" \
    --out "$out/perf" specs/perf/*.toml -- --baseline unfused --verify sample --warmup 2 --iters 5
fi

# 5. The example app, linked against the installed package.
if want example && [[ -x "$build/examples/conv_bias_relu" ]]; then
  step "example app" example.log "$build/examples/conv_bias_relu"
fi

# 6. Memory and race checking of the GPU suite (small cases).
if want sanitize && [[ -z "$quick" ]] && command -v compute-sanitizer >/dev/null; then
  step "sanitizers" sanitize.log run_sanitizers
  grep -E '^(memcheck|racecheck): ' "$out/sanitize.log" | while IFS= read -r line; do note "  $line"; done
fi

# 7. The tile sweep (asked for by name only: it takes a few minutes and changes nothing).
if [[ $stages == *",sweep,"* ]]; then
  step "tile sweep" tile_sweep.log stdbuf -oL "$build/tests/hipfuse_gpu_tests" -tc="${SWEEP:-igemm: tile sweep*}" --no-skip
fi

echo
echo "==== summary ($out/summary.txt)"
cat "$summary"
exit $status
