#!/usr/bin/env bash
# GPU call 17 (44ed548): the changed GPU tests (exchange on x larger than the L2, graph replay,
# misaligned), BN training A/B on the fp16 shapes near the L2 size, then validation.
set -uo pipefail
out=${OUT:-/tmp/out}; logs=$out/logs; mkdir -p "$logs"
t0=$SECONDS
stamp() { echo "$1 rc=$2 t=$((SECONDS - $3)) at=$((SECONDS - t0))" | tee -a "$logs/times.txt"; }
export MIOPEN_CUSTOM_CACHE_DIR=/tmp/kcache
s=$SECONDS; timeout 200 stdbuf -oL build-gpu/tests/hipfuse_gpu_tests -tc='fused BN training*,fused graph capture*' --duration=true > "$logs/tests.log" 2>&1; stamp tests $? $s
grep -E "test cases|assertions|ERROR|FAILED" "$logs/tests.log" | tail -8
for v in base new; do d=build-gpu/fusiondriver; [[ $v == base ]] && d=build-gpu-base/fusiondriver
  s=$SECONDS; timeout 60 $d run specs/perf/na_fwd_training_fp16_nchw.toml --filter 'c512_28|c64_112' --gap-us 50 --verify sample --format csv --out "$logs/ab_${v}_na16.csv" > "$logs/ab_${v}_na16.log" 2>&1; stamp ab_$v $? $s
done
grep -h "na_fwd" "$logs"/ab_*_na16.csv | cut -d, -f1-12
tar -czf "$out/run17.tar.gz" -C "$out" logs
