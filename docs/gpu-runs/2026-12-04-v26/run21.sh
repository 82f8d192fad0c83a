#!/usr/bin/env bash
# GPU call 21: new = b15e2bb + the bias-then-BN epilogue folded to one fma (alpha too);
# base = b15e2bb. A/B of CBNA (fp16 NHWC twice, bf16 NHWC, fp16 NCHW) and CBA fp16 NHWC as the
# control, then the GPU tests (sharded) and the validation matrix.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$logs/device.txt" 2>&1
ab() {  # ab NAME SPEC FILTER VARIANTS...
  local name=$1 spec=$2 filter=$3; shift 3
  for v in "$@"; do
    d=build-gpu/fusiondriver; [[ $v == base ]] && d=build-gpu-base/fusiondriver
    s=$SECONDS
    timeout 60 $d run specs/perf/$spec.toml --filter "$filter" --gap-us 50 --verify sample --format csv --out "$logs/ab_${v}_${name}.csv" > "$logs/ab_${v}_${name}.log" 2>&1
    stamp "ab_${v}_${name}" $? $s
  done
}
ab cbna16_1 cbna_fp16_nhwc c base new
ab cbna16_2 cbna_fp16_nhwc c new base
ab cbnabf_1 cbna_bf16_nhwc c base new
ab cbna16nchw_1 cbna_fp16_nchw c new base
ab cba16_1 cba_fp16_nhwc c base new
python3 - "$logs" <<'PY' | tee "$logs/ab_summary.txt"
import csv, glob, sys, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/ab_*.csv')):
    b = os.path.basename(f)[3:-4]; v, rep = b.split('_')[0], b.split('_')[-1]
    for r in csv.DictReader(open(f)):
        t[r['name']][v + rep] = (r['status'], float(r['median_us'] or 'nan'))
for name, d in t.items():
    cells = ' '.join(f"{k}={d[k][1]:7.1f}{'' if d[k][0]=='PASSED' else '!'+d[k][0]}" for k in sorted(d))
    print(f"{name:42s} {cells}")
PY
s=$SECONDS; STAGES=tests,validate JOBS=12 timeout 400 scripts/gpu-check.sh build-gpu "$logs/check" > "$logs/check.log" 2>&1; stamp check $? $s
tail -4 "$logs/check.log"
tar -czf "$out/run21.tar.gz" -C "$out" logs
