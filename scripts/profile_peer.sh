#!/usr/bin/env bash
# Which kernels a peer runs for chosen perf cases, and their hardware counters, on a machine
# with a GPU, PyTorch and Nsight Compute (ncu).
#
#   scripts/profile_peer.sh OUT_DIR CASE_ID[:PEER[:LAYOUT]]...
#
# PEER is cudnn_fused (default: torch.cudnn_convolution_relu) or eager; LAYOUT nhwc (default,
# channels-last) or nchw. Each case runs in its own process (scripts/bench/peers.py profile):
# warmed up as the harness does, so cuDNN's choice is made, then two calls inside an NVTX
# range, the only kernels ncu profiles. Writes OUT_DIR/<case>_<peer>_<layout>.ncu-rep, its
# details page as .txt (the kernel's name, which says cuDNN's tile and cluster shape, then
# speed of light, scheduler, launch and occupancy), and OUT_DIR/kernels.txt: every profiled
# kernel's name, grid, block and duration, a case after the other. Set beside
# scripts/profile.sh's pages of hipfuse's kernels for the same case.
set -uo pipefail

out=${1:?usage: scripts/profile_peer.sh OUT_DIR CASE_ID[:PEER[:LAYOUT]]...}
shift
export PATH="$PATH:${CUDA_PATH:-/usr/local/cuda}/bin"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
status=0

sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats
  --section WarpStateStats --section LaunchStats --section Occupancy)
metrics=(--metrics sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg)

for item in "$@"; do
  IFS=: read -r case_id peer layout <<<"$item"
  peer=${peer:-cudnn_fused}
  layout=${layout:-nhwc}
  name=${case_id}_${peer}_${layout}
  echo "== $name"
  ncu --clock-control none --target-processes all --nvtx --nvtx-include "peer/" \
    "${sections[@]}" "${metrics[@]}" -f -o "$out/$name" \
    python3 "$here/bench/peers.py" profile --case "$case_id" --peer "$peer" --layout "$layout" \
    --calls 2 >"$out/$name.log" 2>&1 || status=1
  ncu --import "$out/$name.ncu-rep" --page details >"$out/$name.txt" 2>>"$out/$name.log" || status=1
  tail -2 "$out/$name.log"
  {
    echo "== $name"
    grep -E '^  [^ ].*\([0-9]+, [0-9]+, [0-9]+\)x\(' "$out/$name.txt"
    grep -E '^    (Duration|Cluster Size|Registers Per Thread|Grid Size|Dynamic Shared Memory Per Block) ' "$out/$name.txt"
  } >>"$out/kernels.txt"
done
exit $status
