#!/usr/bin/env bash
# One process per case: an illegal instruction ends the context.
cd "$(dirname "$0")"  # beside tma_probe, built by: nvcc -arch=sm_90a -o tma_probe tma_probe.cu -lcuda
for c in "64 64 0" "64 64 8" "64 64 -8" "64 64 -1" "64 64 1" "56 64 0" "56 64 -8" "56 64 -1" "56 56 0" "56 56 -8" "120 64 -1" "120 64 -2" "120 64 -4" "120 64 -8"; do
  timeout 20 ./tma_probe $c || echo "$c: rc=$?"
done
