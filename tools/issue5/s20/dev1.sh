#!/bin/sh
# tools/issue5/s20/dev1.sh - twentieth session, device run 1 (repository root): the unit pool
# (-DOSCAR_WSTEAL=N, kernels/NOTES.md v41): tests with the pool forced on even layers, then bench sets
# in one run against the committed kernels (old/, from `git show HEAD:`): batch 8-32 (pool on by the
# host's rule), batch 1 with the pool forced (--steal 1), BF16 and INT2.
O=${OUT:-build/s20}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for w in 25; do
    OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WSTEAL=$w" timeout 120 ./build/test_cuda --gpu --quick > "$O/quick_w$w.log" 2>&1
    echo "quick WSTEAL=$w: rc=$? $(grep -c '^ok' "$O/quick_w$w.log") ok, $(grep -c FAIL "$O/quick_w$w.log") FAIL"; grep -m 6 FAIL "$O/quick_w$w.log"
done
timeout 60 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick default: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 4 FAIL "$O/quick.log"
show() { awk -F, 'NR > 1 { printf "  %-5s %5s %8s  us %7.1f  b2b %7.1f  graph %7.1f  %5.1f%%\n", $1, $2, $3, $8, $10, $15, $14 }' "$1"; }
n=0
for s in w20 old w35 new w20 old; do
    n=$((n + 1)); b=./build/bench_gpu; opt=
    case $s in old) b=./build/bench_old ;; w*) opt="-DOSCAR_WSTEAL=${s#w}" ;; esac
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 150 $b --batch 8,32 --ctx 32768,131072 --iters 20 --mode int2 --csv "$O/b832_$n$s.csv" > "$O/b832_$n$s.log" 2>&1
    echo "set $n $s ($opt) batch 8-32"; show "$O/b832_$n$s.csv"
    if [ $n -le 4 ]; then
        st=; [ "${s#w}" != "$s" ] && st="--steal 1"
        OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 90 $b --batch 1 --ctx 32768,131072 --iters 50 --mode both $st --csv "$O/b1_$n$s.csv" > "$O/b1_$n$s.log" 2>&1
        echo "set $n $s ($opt $st) batch 1"; show "$O/b1_$n$s.csv"
    fi
done
grep -h "^copy" "$O"/b832_1*.log | head -1
true
