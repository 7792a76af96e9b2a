#!/bin/sh
# tools/issue5/s22/next_v48.sh - prepared for the next device session, not run (this session's device time was
# spent). Repository root, device machine. Two small changes on the batch-1 chain after v47, timed alone and
# together against the tree as it is (old):
#   v48a (v48a_epilogue.patch): oscar_decode_w's end, lanes 0..G-1 of every warp compute the G heads' warp
#        weights and sums into the warp's own copy, a warp barrier instead of the block's (same operations,
#        same bits; warp 0 writes (M, L)). ptxas (tools/ptxas_report.sh): registers and spills as before.
#   v48b (v48b_mergeh_totals.patch): oscar_merge_h, a warp per head sums its slices in the transform's lane
#        layout (no os round trip, one barrier fewer); d 64 merge_h no longer spills (v47 made it spill 4 bytes).
# Prediction: v48a -0.1 to -0.2 us per batch-1 call, level at batch 8-32; v48b -0.05
# to -0.1 us for H caches at batch 1-4. Quick test of each build, graph us (events us), the whole test_cuda --gpu
# of the a+b build. Each variant is a directory of its own (headers re-embedded with tools/embed.sh).
O=${OUT:-build/v48}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cp build/bench_gpu build/bench_old
# QUICK_OLD=1 also runs the quick test of the tree as it is; FULL=0 leaves out the whole test of a + b
[ "$QUICK_OLD" = 1 ] && { timeout 200 ./build/test_cuda --gpu --quick > "$O/quick_old.log" 2>&1; echo "quick old: rc=$? $(grep -c "^ok" "$O/quick_old.log") ok, $(grep -c FAIL "$O/quick_old.log") FAIL"; }
for v in a b ab; do
    rm -rf "v$v" && mkdir -p "v$v" && cp -r oscar.h oscar_cuda.h cli kernels tests "v$v/" || exit 1
    case $v in *a*) (cd "v$v" && patch -p1 -s < ../tools/issue5/s22/v48a_epilogue.patch) || exit 1;; esac
    case $v in *b*) (cd "v$v" && patch -p1 -s < ../tools/issue5/s22/v48b_mergeh_totals.patch) || exit 1;; esac
    sh tools/embed.sh "v$v/oscar_cuda.h" "v$v/kernels/oscar_common.cuh" "v$v/kernels/oscar_append.cu" "v$v/kernels/oscar_decode.cu" > "v$v/h.new" && mv "v$v/h.new" "v$v/oscar_cuda.h" || exit 1
    cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN "v$v/cli/bench_gpu.c" -o "build/bench_$v" -lm -ldl || exit 1
    cc -std=c99 -O2 "v$v/tests/test_cuda.c" -o "build/test_cuda_$v" -lm -ldl -lpthread || exit 1
    timeout 200 "./build/test_cuda_$v" --gpu --quick > "$O/quick_$v.log" 2>&1; echo "quick $v: rc=$? $(grep -c '^ok' "$O/quick_$v.log") ok, $(grep -c FAIL "$O/quick_$v.log") FAIL"
done
nvidia-smi --query-gpu=name --format=csv,noheader
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for n in 1 2; do
    for v in old a b ab; do
        timeout 60 "./build/bench_$v" --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/h.csv" > /dev/null 2>&1; row "$n $v H" "$O/h.csv"
        timeout 60 "./build/bench_$v" --batch 1 --ctx 8192,32768 --iters 30 --mode int2 --rot dense --csv "$O/d.csv" > /dev/null 2>&1; row "$n $v dense" "$O/d.csv"
        timeout 60 "./build/bench_$v" --batch 1 --ctx 32768 --iters 30 --mode bf16 --csv "$O/f.csv" > /dev/null 2>&1; row "$n $v bf16" "$O/f.csv"
        timeout 60 "./build/bench_$v" --batch 8,32 --ctx 32768 --iters 15 --mode int2 --csv "$O/e.csv" > /dev/null 2>&1; row "$n $v H" "$O/e.csv"
    done
done
[ "$FULL" = 0 ] && echo "(whole test: in the issue-5 run that follows)" || { s=$(date +%s); timeout 330 ./build/test_cuda_ab --gpu > "$O/test_ab.log" 2>&1; echo "ab full: rc=$? $(( $(date +%s) - s )) s $(grep -c '^ok' "$O/test_ab.log") ok, $(grep -c FAIL "$O/test_ab.log") FAIL"; grep -m 3 FAIL "$O/test_ab.log"; }
rm -rf va vb vab
true
