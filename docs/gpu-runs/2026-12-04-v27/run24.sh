#!/usr/bin/env bash
# GPU call 24 (call 23 ran past its limit before packing its logs): v27 A/B and the GPU tests.
# base = f1973d5 (build-gpu-base); new = per-element sums, shuffle trees, staggered cohorts
# (build-gpu); nost = new with the cohorts off. Logs in /tmp/logs, packed into $OUT after each stage.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=/tmp/logs; mkdir -p "$logs"
t0=$SECONDS
pack() { tar -czf "$out/run24.tar.gz" -C /tmp logs; }
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$logs/device.txt" 2>&1
ab() {  # ab NAME SPEC FILTER VARIANTS...
  local name=$1 spec=$2 filter=$3; shift 3
  for v in "$@"; do
    d=build-gpu/fusiondriver; kd=
    [[ $v == base ]] && d=build-gpu-base/fusiondriver
    [[ $v == nost ]] && kd=$PWD/ab/kernels-nost
    s=$SECONDS
    HIPFUSE_KERNEL_DIR=$kd timeout 45 $d run specs/perf/$spec.toml --filter "$filter" --gap-us 50 --verify sample --format csv --out "$logs/ab_${v}_${name}.csv" > "$logs/ab_${v}_${name}.log" 2>&1
    stamp "ab_${v}_${name}" $? $s
  done
}
summary() {
python3 - "$logs" <<'PY' | tee "$logs/ab_summary.txt"
import csv, glob, sys, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/ab_*.csv')):
    b = os.path.basename(f)[3:-4]; v, rep = b.split('_')[0], b.split('_')[-1]
    for r in csv.DictReader(open(f)):
        t[r['name'].split('/')[-1]][v + rep] = (r['status'], float(r['median_us'] or 'nan'))
for name, d in t.items():
    cells = ' '.join(f"{k}={d[k][1]:6.1f}{'' if d[k][0]=='PASSED' else '!'+d[k][0]}" for k in sorted(d))
    print(f"{name:36s} {cells}")
PY
}
unset HIPFUSE_KERNEL_DIR
ab na32_1 na_fwd_training_fp32_nchw c base nost new
ab na32_2 na_fwd_training_fp32_nchw c new nost base
ab bwd32_1 na_bwd_training_fp32_nchw 'c1024|c2048' base new
summary; pack
s=$SECONDS; STAGES=tests JOBS=12 timeout 300 scripts/gpu-check.sh build-gpu "$logs/check" > "$logs/check.log" 2>&1; stamp check $? $s
tail -3 "$logs/check.log"; grep -h -E "^[0-9.]+ s: (fused BN|fused graph|concurrency)" "$logs"/check/gpu_tests_*.log
pack
