#!/usr/bin/env bash
# GPU call 19: base = 9b8ad19 (one exchange ticket a block); new = persistent exchange blocks
# holding two tickets, shared memory opt-in (A: take the next ticket before finishing the
# current; B (ab/kernels-b): start the ticket after next before publishing next); x = new with
# the exchange also over the one-partial held 14x14 planes and within the L2.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
KB=$PWD/ab/kernels-b
ab() {  # ab NAME SPEC FILTER VARIANTS...
  local name=$1 spec=$2 filter=$3; shift 3
  for v in "$@"; do
    d=build-gpu/fusiondriver; kd=; [[ $v == base ]] && d=build-gpu-base/fusiondriver; [[ $v == x ]] && d=build-gpu-x/fusiondriver; [[ $v == b ]] && kd=$KB
    s=$SECONDS
    HIPFUSE_KERNEL_DIR=$kd timeout 60 $d run specs/perf/$spec.toml --filter "$filter" --gap-us 50 --verify sample --format csv --out "$logs/ab_${v}_${name}.csv" > "$logs/ab_${v}_${name}.log" 2>&1
    stamp "ab_${v}_${name}" $? $s
  done
}
[[ -z "${HIPFUSE_KERNEL_DIR:-}" ]] && unset HIPFUSE_KERNEL_DIR
ab na32_1 na_fwd_training_fp32_nchw 'c64_|c256|c512' base new b
ab na32_2 na_fwd_training_fp32_nchw 'c64_|c256|c512' b new base
ab na16_1 na_fwd_training_fp16_nchw 'c64_|c256' new base b
ab n14_1 na_fwd_training_fp32_nchw 'c1024' base x
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
for v in new b; do kd=; [[ $v == b ]] && kd=$KB
  s=$SECONDS; HIPFUSE_KERNEL_DIR=$kd timeout 60 ncu --clock-control none --kernel-name regex:hf_bn --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy build-gpu/fusiondriver run specs/perf/na_fwd_training_fp32_nchw.toml --filter c256_56 --iters 3 --warmup 3 --verify off --buffer-sets 1 > "$logs/ncu_${v}_c256.txt" 2>&1; stamp ncu_$v $? $s
  grep -E "  Duration|DRAM Throughput|Achieved Occupancy|Theoretical Occ|Local Memory Spill" "$logs/ncu_${v}_c256.txt"
done
s=$SECONDS; timeout 200 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='fused BN training*,fused graph capture*,concurrency*' --duration=true > "$logs/tests.log" 2>&1; stamp tests $? $s
grep -E "test cases|assertions|ERROR|FAILED" "$logs/tests.log" | tail -8
s=$SECONDS; HIPFUSE_KERNEL_DIR=$KB timeout 90 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='fused BN training: one launch*,fused BN training: pointers*,fused graph capture*' > "$logs/tests_b.log" 2>&1; stamp tests_b $? $s
grep -E "test cases|assertions|FATAL" "$logs/tests_b.log" | tail -4
tar -czf "$out/run19.tar.gz" -C "$out" logs
