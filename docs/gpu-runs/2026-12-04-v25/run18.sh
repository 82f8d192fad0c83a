#!/usr/bin/env bash
# GPU call 18: base = 9b8ad19 (one exchange ticket a block), new = persistent exchange blocks
# holding two tickets (next one's loads overlap the current one's normalise), x = new with the
# exchange also within the L2 and over the one-partial held 14x14 planes. Tests, A/B, profile, validation.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$logs/device.txt" 2>&1
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
s=$SECONDS; timeout 240 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='fused BN training*,fused graph capture*,concurrency*' --duration=true > "$logs/tests.log" 2>&1; stamp tests $? $s
grep -E "test cases|assertions|ERROR|FAILED" "$logs/tests.log" | tail -8
s=$SECONDS; timeout 60 stdbuf -oL build-gpu-base/tests/hipfuse_gpu_tests -tc='fused BN training: one launch*,fused BN training: pointers*,fused graph capture*' > "$logs/tests_base.log" 2>&1; stamp tests_base $? $s
grep -E "test cases|assertions" "$logs/tests_base.log" | tail -2
ab() {  # ab NAME SPEC FILTER VARIANTS...
  local name=$1 spec=$2 filter=$3; shift 3
  for v in "$@"; do
    d=build-gpu/fusiondriver; [[ $v == base ]] && d=build-gpu-base/fusiondriver; [[ $v == x ]] && d=build-gpu-x/fusiondriver
    s=$SECONDS
    timeout 60 $d run specs/perf/$spec.toml --filter "$filter" --gap-us 50 --verify sample --format csv --out "$logs/ab_${v}_${name}.csv" > "$logs/ab_${v}_${name}.log" 2>&1
    stamp "ab_${v}_${name}" $? $s
  done
}
ab na32_1 na_fwd_training_fp32_nchw '.' base new x
ab na32_2 na_fwd_training_fp32_nchw '.' x new base
ab na16_1 na_fwd_training_fp16_nchw '.' new base x
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
s=$SECONDS; timeout 60 ncu --clock-control none --kernel-name regex:hf_bn --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats build-gpu/fusiondriver run specs/perf/na_fwd_training_fp32_nchw.toml --filter c256_56 --iters 3 --warmup 3 --verify off --buffer-sets 1 > "$logs/ncu_na_fwd_c256.txt" 2>&1; stamp ncu $? $s
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Memory Throughput" "$logs/ncu_na_fwd_c256.txt"
s=$SECONDS; timeout 150 python3 scripts/run_parallel.py --driver build-gpu/fusiondriver --jobs 16 --out "$logs/validate" specs/ci/*.toml specs/examples/*.toml specs/miopen_tables.toml -- --baseline unfused > "$logs/validate.log" 2>&1; stamp validate $? $s
tail -1 "$logs/validate.log"
tar -czf "$out/run18.tar.gz" -C "$out" logs
