#!/bin/sh
# device run (session 15): full test_cuda of the working tree, a quick one with each option set,
# then tools/gpu_xp.sh over the option sets and the committed kernels (old/, from git show HEAD:)
SETS=${SETS:-}
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p "$OUT/xp"
echo "$SETS" | tr '|' '\n' | while read -r v; do
    [ -n "$v" ] || continue
    OSCAR_CUDA_NVRTC_OPTIONS="$v" ./build/test_cuda --gpu --quick > "$OUT/xp/test_q.log" 2>&1
    echo "quick test '$v': $(grep -c '^ok' "$OUT/xp/test_q.log") ok, $(grep -c FAIL "$OUT/xp/test_q.log") FAIL"
    grep -m 4 FAIL "$OUT/xp/test_q.log"
done
OUT=$OUT/xp TEST=${TEST:-full} SETS="$SETS" sh tools/gpu_xp.sh
tar czf "$OUT/xp.tgz" -C "$OUT" xp && rm -rf "$OUT/xp"
