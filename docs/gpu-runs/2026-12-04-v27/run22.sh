#!/usr/bin/env bash
# GPU call 22: HEAD (f1973d5's alpha-fold test first), a source-level profile of the NA
# forward-training held kernels (2048x7x7, 1024x14x14 fp32 NCHW), then GPU tests + validation.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$logs/device.txt" 2>&1
s=$SECONDS; timeout 120 build-gpu/tests/hipfuse_gpu_tests -tc='fused conv: alpha folded*' --duration=true > "$logs/alpha_fold_test.log" 2>&1; stamp alpha_test $? $s
tail -3 "$logs/alpha_fold_test.log"
export PATH=$PATH:/usr/local/cuda/bin
for f in c2048_7 c1024_14; do
  s=$SECONDS
  timeout 90 ncu --clock-control none --kernel-name regex:hf_bn_forward --launch-skip 3 --launch-count 1 --import-source no \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats --section InstructionStats --section SchedulerStats \
    -o "$logs/ncu_$f" build-gpu/fusiondriver run specs/perf/na_fwd_training_fp32_nchw.toml --filter $f --iters 3 --warmup 3 --verify off --buffer-sets 1 > "$logs/ncu_${f}_run.txt" 2>&1
  stamp ncu_$f $? $s
  ncu -i "$logs/ncu_$f.ncu-rep" --page details --print-details all > "$logs/ncu_${f}_details.txt" 2>&1
  ncu -i "$logs/ncu_$f.ncu-rep" --page source --print-source sass --csv > "$logs/ncu_${f}_sass.csv" 2>&1
  ls -la "$logs/ncu_${f}_sass.csv"; grep -E "  Duration|Warp Cycles Per Issued|Executed Ipc A|Issued Warp|No Eligible" "$logs/ncu_${f}_details.txt" | head
done
s=$SECONDS; STAGES=tests,validate,example JOBS=12 timeout 420 scripts/gpu-check.sh build-gpu "$logs/check" > "$logs/check.log" 2>&1; stamp check $? $s
tail -6 "$logs/check.log"
tar -czf "$out/run22.tar.gz" -C "$out" logs
