#!/usr/bin/env bash
# GPU call 13: A/B base (aa69062) / s2 (337a2a9: streamed re-layout) / new (streamed beside
# persistent GEMMs only, the grid from registers, the GEMM's carveout too); if new is faster on the 3x3 layers:
# GPU tests of the streamed paths and the harness's nchw set; else Nsight Compute of the s2 case.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$logs/device.txt" 2>&1
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
ab() {  # ab NAME SPEC FILTER VARIANTS...
  local name=$1 spec=$2 filter=$3; shift 3
  for v in "$@"; do
    d=build-gpu/fusiondriver; [[ $v == base ]] && d=build-gpu-base/fusiondriver; [[ $v == s2 ]] && d=build-gpu-s2/fusiondriver
    s=$SECONDS
    timeout 60 $d run specs/perf/$spec.toml --filter "$filter" --gap-us 50 --verify sample --format csv --out "$logs/ab_${v}_${name}.csv" > "$logs/ab_${v}_${name}.log" 2>&1
    stamp "ab_${v}_${name}" $? $s
  done
}
ab f16_1 cba_fp16_nchw '3x3' base new s2
ab f16_2 cba_fp16_nchw '3x3' new base
ab cbna_1 cbna_fp16_nchw '3x3' new base
ab bf16_1 cba_bf16_nchw '3x3' base new
python3 - "$logs" <<'PY' | tee "$logs/ab_summary.txt"
import csv, glob, sys, os, collections, math
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/ab_*.csv')):
    b = os.path.basename(f)[3:-4]; v, rep = b.split('_')[0], b.split('_')[-1]
    for r in csv.DictReader(open(f)):
        t[r['name']][v + rep] = (r['status'], float(r['median_us'] or 'nan'))
ratios = []
for name, d in t.items():
    cells = ' '.join(f"{k}={d[k][1]:7.1f}{'' if d[k][0]=='PASSED' else '!'+d[k][0]}" for k in sorted(d))
    print(f"{name:42s} {cells}")
    if "new1" in d and "base1" in d: ratios.append(d["new1"][1] / d["base1"][1])
g = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else 9
worst = max(ratios) if ratios else 9
print(f"geomean new/base {g:.3f}, worst {worst:.3f}")
open(sys.argv[1] + '/verdict', 'w').write('go' if g < 0.98 and worst <= 1.02 else 'stop')
PY
if [[ $(cat "$logs/verdict") == go ]]; then
  s=$SECONDS; timeout 100 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='igemm: streamed*,fused graph capture*,igemm: im2col*' --duration=true > "$logs/tests.log" 2>&1; stamp tests $? $s
  grep -E "test cases|assertions|ERROR|FAILED" "$logs/tests.log" | tail -8
  s=$SECONDS; BENCH_COMMIT=478da896f32e274b894859c8441f9827d22941e0 scripts/bench.sh build-gpu $out/bench --set nchw --md $out/bench/PERF.md > "$logs/bench_stdout_nchw.log" 2>&1; stamp bench $? $s
  tail -14 "$logs/bench_stdout_nchw.log"
else
  s=$SECONDS
  drv=$(cd build-gpu && pwd)/fusiondriver
  timeout 120 ncu --clock-control none -k 'regex:^hf_' --launch-count 4 --section SpeedOfLight --section LaunchStats --section Occupancy \
    $drv run specs/perf/cba_fp16_nchw.toml --filter 3x3_c128 --iters 2 --warmup 0 > "$logs/ncu_s2.txt" 2>&1; stamp ncu $? $s
  grep -E "hf_|Duration|Shared Memory Configuration|Registers Per|Block Limit|Driver Shared|Dynamic Shared|Grid Size|Waves" "$logs/ncu_s2.txt" | head -60
  which nsys && { s=$SECONDS; timeout 90 nsys profile -o $out/nsys_s2 --force-overwrite true $drv run specs/perf/cba_fp16_nchw.toml --filter 3x3_c128 --iters 5 --warmup 1 > "$logs/nsys.log" 2>&1; stamp nsys $? $s; nsys stats --report cuda_gpu_trace $out/nsys_s2.nsys-rep 2>/dev/null | grep -E "hf_" | tail -12 > "$logs/nsys_trace.txt"; cat "$logs/nsys_trace.txt"; }
fi
tar -czf "$out/run13.tar.gz" -C "$out" logs
