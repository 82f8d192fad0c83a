#!/usr/bin/env bash
# Hardware counters for the kernels of chosen perf cases, on a machine with a GPU and
# Nsight Compute (ncu).
#
#   scripts/profile.sh BUILD_DIR OUT_DIR SPEC:CASE_REGEX...
#
# For each SPEC:CASE_REGEX, runs the case once through the driver under ncu (clocks left
# as they are, the full section set, hipfuse kernels only) and writes OUT_DIR/<case>.ncu-rep
# plus its details page as text, OUT_DIR/<case>.txt (per kernel: speed of light, memory and
# compute workload, warp stall reasons, scheduler, instruction mix, launch, occupancy, and the
# spread of active cycles over the multiprocessors: a max well above the average is an uneven
# finish or a tail, time the averaged figures hide). The fused plan's kernels
# are profiled, not the unfused baseline's; timings under ncu are per single launch with
# caches flushed, so use them for ratios, not as the figures of record (scripts/bench.sh).
set -uo pipefail

build=${1:?usage: scripts/profile.sh BUILD_DIR OUT_DIR SPEC:CASE_REGEX...}
out=${2:?usage: scripts/profile.sh BUILD_DIR OUT_DIR SPEC:CASE_REGEX...}
shift 2
export PATH="$PATH:${CUDA_PATH:-/usr/local/cuda}/bin"
mkdir -p "$out"
driver="$(cd "$build" && pwd)/fusiondriver"  # ncu wants a path it can find
status=0

sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis
  --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats
  --section Occupancy)
# The spread of active cycles over the multiprocessors shows a tail the averages hide.
metrics=(--metrics sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg)

for item in "$@"; do
  spec=${item%%:*}
  case_regex=${item#*:}
  name=$(basename "$spec" .toml)_$(echo "$case_regex" | tr -c 'A-Za-z0-9_\n' '_')
  echo "== $name"
  # One execution, no warm-up: its kernels (and any weight/input re-layout) are profiled.
  ncu --clock-control none --target-processes all -k 'regex:^hf_' --launch-count 12 \
    "${sections[@]}" "${metrics[@]}" -f -o "$out/$name" \
    "$driver" run "$spec" --filter "$case_regex" --warmup 0 --iters 1 --buffer-sets 1 \
    --verify off --no-progress >"$out/$name.log" 2>&1 || status=1
  ncu --import "$out/$name.ncu-rep" --page details >"$out/$name.txt" 2>>"$out/$name.log" || status=1
  tail -3 "$out/$name.log"
done
exit $status
