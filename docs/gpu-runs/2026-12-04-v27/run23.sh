#!/usr/bin/env bash
# GPU call 23: v27 A/B. base = f1973d5 (build-gpu-base); new = the plane-group walk's per-element
# sums and parameters, shuffle trees in the BN reductions, staggered cohorts (build-gpu);
# nost = new with the cohorts off (kernels: Tiling::staggered -> false); tree = nost with the
# barrier trees of f1973d5 (the per-element sums alone). Then the GPU tests and validation on new.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$logs/device.txt" 2>&1
ab() {  # ab NAME SPEC FILTER VARIANTS...
  local name=$1 spec=$2 filter=$3; shift 3
  for v in "$@"; do
    d=build-gpu/fusiondriver; kd=
    [[ $v == base ]] && d=build-gpu-base/fusiondriver
    [[ $v == nost ]] && kd=$PWD/ab/kernels-nost
    [[ $v == tree ]] && kd=$PWD/ab/kernels-tree
    s=$SECONDS
    HIPFUSE_KERNEL_DIR=$kd timeout 60 $d run specs/perf/$spec.toml --filter "$filter" --gap-us 50 --verify sample --format csv --out "$logs/ab_${v}_${name}.csv" > "$logs/ab_${v}_${name}.log" 2>&1
    stamp "ab_${v}_${name}" $? $s
  done
}
unset HIPFUSE_KERNEL_DIR
ab na32_1 na_fwd_training_fp32_nchw c base tree nost new
ab na32_2 na_fwd_training_fp32_nchw c new nost tree base
ab na16_1 na_fwd_training_fp16_nchw c base new
ab nhwc32_1 na_fwd_training_fp32_nhwc c new base
ab bwd32_1 na_bwd_training_fp32_nchw c base new
ab bwd16_1 na_bwd_training_fp16_nhwc c new base
python3 - "$logs" <<'PY' | tee "$logs/ab_summary.txt"
import csv, glob, sys, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/ab_*.csv')):
    b = os.path.basename(f)[3:-4]; v, rep = b.split('_')[0], b.split('_')[-1]
    for r in csv.DictReader(open(f)):
        t[r['name']][v + rep] = (r['status'], float(r['median_us'] or 'nan'))
for name, d in t.items():
    cells = ' '.join(f"{k}={d[k][1]:7.1f}{'' if d[k][0]=='PASSED' else '!'+d[k][0]}" for k in sorted(d))
    print(f"{name:48s} {cells}")
PY
s=$SECONDS; STAGES=tests,validate JOBS=12 timeout 400 scripts/gpu-check.sh build-gpu "$logs/check" > "$logs/check.log" 2>&1; stamp check $? $s
tail -5 "$logs/check.log"
tar -czf "$out/run23.tar.gz" -C "$out" logs
