#!/bin/sh
# tools/issue5/s24/ab_opt.sh - same-run A/B of one NVRTC option set against the default build (device machine,
# repository root): the quick GPU test with the option, then each row timed in the order default, option,
# default, option; graph us (events us) per shape.
# usage: sh tools/issue5/s24/ab_opt.sh OPTIONS TAG ROW...   ROW = "MODE BATCHES CONTEXTS ITERS [bench options]"
opt=$1 tag=$2; shift 2
rows=$(for r in "$@"; do echo "$r"; done)
O=${OUT:-build/s24_ab}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 200 ./build/test_cuda --gpu --quick > "$O/quick_$tag.log" 2>&1
echo "quick $tag: rc=$? $(grep -c '^ok' "$O/quick_$tag.log") ok, $(grep -c FAIL "$O/quick_$tag.log") FAIL"; grep -m 5 "FAIL\|error" "$O/quick_$tag.log"
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for v in def "$tag" def "$tag"; do
    o=; [ "$v" = "$tag" ] && o=$opt
    n=0
    echo "$rows" | while read -r mode b c it extra; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 90 ./build/bench_gpu --batch "$b" --ctx "$c" --iters "$it" --mode "$mode" $extra --csv "$O/r$n.csv" > "$O/r${n}_$v.log" 2>&1
        row "$v $mode" "$O/r$n.csv"
    done
done
grep -h "^copy" "$O"/r1_def.log | head -1
true
