#!/usr/bin/env bash
# GPU call 15: GPU tests of e2a48da's streamed re-layout and graph replays; the two skipped sweeps;
# the BN training shapes on the current code, and a profile of the largest.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$logs/device.txt" 2>&1
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
s=$SECONDS; timeout 150 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='igemm: streamed*,fused graph capture*' --duration=true > "$logs/tests.log" 2>&1; stamp tests $? $s
grep -E "test cases|assertions|ERROR|FAILED" "$logs/tests.log" | tail -8
for spec in na_fwd_training_fp32_nchw na_bwd_training_fp32_nchw na_fwd_training_fp16_nchw na_fwd_training_fp32_nhwc; do
  s=$SECONDS; timeout 60 build-gpu/fusiondriver run specs/perf/$spec.toml --gap-us 50 --verify sample --format csv --out "$logs/bn_$spec.csv" > "$logs/bn_$spec.log" 2>&1; stamp "bn_$spec" $? $s
done
s=$SECONDS; timeout 90 ncu --clock-control none --kernel-name regex:hf_bn --launch-skip 6 --launch-count 3 --section SpeedOfLight --section MemoryWorkloadAnalysis build-gpu/fusiondriver run specs/perf/na_fwd_training_fp32_nchw.toml --filter c256_56 --iters 3 --warmup 3 --verify off --buffer-sets 1 > "$logs/ncu_na_fwd_c256.txt" 2>&1; stamp ncu $? $s
s=$SECONDS; timeout 200 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='igemm: tile sweep of the streamed NCHW re-layout' --no-skip > "$logs/sweep_stream.log" 2>&1; stamp sweep_stream $? $s
s=$SECONDS; timeout 200 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='igemm: tile sweep of the NCHW 1x1 layers of GEMM K 128-512' --no-skip > "$logs/sweep_1x1.log" 2>&1; stamp sweep_1x1 $? $s
tar -czf "$out/run15.tar.gz" -C "$out" logs
