#!/usr/bin/env bash
# Registers and spills of the matrix implicit-GEMM kernel for every tile on the reference
# layers, offline (no GPU): writes the generated headers with the unit tests, then runs
# `nvcc -cubin -Xptxas -v` for sm_90 (sm_90a for the warpgroup tiles) on each set.
#   scripts/igemm_ptxas.sh [BUILD_DIR] [FILTER]   (FILTER: a substring of the set name, e.g. k64)
set -euo pipefail
build=${1:-build}
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${CUDA_PATH:-/usr/local/cuda}/bin/nvcc
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
HIPFUSE_IGEMM_HEADER_DIR=$out/headers "$build/tests/hipfuse_unit_tests" \
  -tc="igemm: write the generated headers*" --no-skip >/dev/null
printf "%-48s %5s %6s\n" set regs spill
for d in "$out"/headers/*"$filter"*/; do
  name=$(basename "$d")
  arch=(-arch=sm_90)
  [[ $name == *-wg* ]] && arch=(-gencode=arch=compute_90a,code=sm_90a)  # warpgroup tiles: wgmma
  log=$("$nvcc" -std=c++17 "${arch[@]}" -cubin -o "$out/k.cubin" -Xptxas -v -DHIPFUSE_PLATFORM_NVIDIA=1 \
    -DHF_WARP_SIZE=32 -I "$d" -I "$root/kernels" -x cu "$root/kernels/conv_igemm.hip" 2>&1 || true)
  regs=$(grep -o 'Used [0-9]* registers' <<<"$log" | grep -o '[0-9]*' | tail -1 || true)
  spill=$(grep -o '[0-9]* bytes spill stores' <<<"$log" | grep -o '^[0-9]*' | tail -1 || true)
  printf "%-48s %5s %6s\n" "$name" "${regs:-?}" "${spill:-?}"
done
