#!/bin/sh
# tools/issue5/s21/dev8.sh - twenty-first session, device run 8 (repository root): v45, caches whose rotations
# are all H rotate the queries inside oscar_decode_w (no oscar_rotate_q launch), against HEAD (old/, v43) and
# against the same build with dense rotations (--rot dense: the rotate_q path): quick test, INT2 batch 1 (two
# sets), splits at 8K / 16K, batch 8 / 32, then the whole test_cuda --gpu. Graph us (events us).
O=${OUT:-build/s21h}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-10s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new dense old new dense; do
    n=$((n + 1)); bin=./build/bench_gpu; x=""; [ $b = old ] && bin=./build/bench_old; [ $b = dense ] && x="--rot dense"
    timeout 60 $bin --batch 1 --ctx 8192,12288,32768,131072 --iters 30 --mode int2 $x --csv "$O/b1_$n$b.csv" > /dev/null 2>&1; row "$n $b" "$O/b1_$n$b.csv"
done
for s in 33 41 49 66; do
    timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,16384 --iters 30 --mode int2 --splits $s --csv "$O/s$s.csv" > /dev/null 2>&1; row "new s$s" "$O/s$s.csv"
done
for b in old new dense; do
    bin=./build/bench_gpu; x=""; [ $b = old ] && bin=./build/bench_old; [ $b = dense ] && x="--rot dense"
    timeout 60 $bin --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 $x --csv "$O/b8_$b.csv" > /dev/null 2>&1; row "$b" "$O/b8_$b.csv"
done
s=$(date +%s); timeout 280 ./build/test_cuda --gpu > "$O/test.log" 2>&1; echo "full: rc=$? $(( $(date +%s) - s )) s $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL"; grep -m 3 FAIL "$O/test.log"
grep "^ok" "$O/test.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 } } } END { print "worst err/tol: " m " (" c ")" }'
true
