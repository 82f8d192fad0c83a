#!/usr/bin/env bash
# GPU call 20: new = 9b8ad19 + held 16-bit vectors kept as loaded (raw words) + sharded gpu-check;
# base = 9b8ad19. A/B of BN forward training (fp16 exchange shapes, fp32 control), Nsight Compute
# of CBA against CBNA fp16 NHWC 1x1 64->256 56x56, then the GPU tests (sharded) and validation.
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
ab na16_1 na_fwd_training_fp16_nchw nchw base new
ab na16_2 na_fwd_training_fp16_nchw nchw new base
ab na32_1 na_fwd_training_fp32_nchw 'c64_|c256' base new
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
for f in cba cbna; do
  s=$SECONDS; timeout 60 ncu --clock-control none --kernel-name regex:hf_conv --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis build-gpu/fusiondriver run specs/perf/${f}_fp16_nhwc.toml --filter 1x1_c64_k256_56 --iters 3 --warmup 3 --verify off --buffer-sets 1 > "$logs/ncu_${f}_1x1_64_256.txt" 2>&1; stamp ncu_$f $? $s
  grep -E "  Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Local Memory Spill|Grid Size|Block Size|Dynamic Shared|Executed Ipc A" "$logs/ncu_${f}_1x1_64_256.txt"
done
s=$SECONDS; STAGES=tests,validate JOBS=12 timeout 420 scripts/gpu-check.sh build-gpu "$logs/check" > "$logs/check.log" 2>&1; stamp check $? $s
tail -6 "$logs/check.log"
tar -czf "$out/run20.tar.gz" -C "$out" logs
