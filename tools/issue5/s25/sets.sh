#!/bin/sh
# tools/issue5/s25/sets.sh - same-run comparison of several (NVRTC options | bench options) sets on the device
# machine (repository root): each set timed REPS times, sets interleaved (set 1, 2, ..., n, then again), graph
# us (events us) per shape; first the quick GPU test under each distinct option string.
# usage: ROWS="MODE BATCHES CTXS ITERS" sh tools/issue5/s25/sets.sh "OPTS|BENCHARGS" ...   (REPS=2)
O=${OUT:-build/s25_sets}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
if [ -z "$NOQUICK" ]; then
    for s in "$@"; do
        o=${s%%|*}; [ -z "$o" ] && continue
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
        echo "quick [$o]: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"
    done
fi
row() { printf "%-34s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
r=0
while [ $r -lt "${REPS:-2}" ]; do
    r=$((r + 1)); n=0
    for s in "$@"; do
        n=$((n + 1)); o=${s%%|*}; a=${s#*|}
        echo "$ROWS" | while read -r mode b c it; do
            # shellcheck disable=SC2086
            OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 90 ./build/bench_gpu --batch "$b" --ctx "$c" --iters "$it" --mode "$mode" $a --csv "$O/s$n.csv" > "$O/s${n}_$r.log" 2>&1
            row "[$o|$a]" "$O/s$n.csv"
        done
    done
done
grep -h "^copy" "$O"/s1_1.log | head -1
true
