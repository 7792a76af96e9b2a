#!/bin/sh
# tools/issue5/s22/dev2.sh - run 2: v46 again (patch on a copy, old/ = HEAD): --rot dense at batch 1, three
# old/new sets (run 1's single set had dense 0.4-0.5 us slower with v46, which leaves dense alone), then the
# whole test_cuda --gpu of v46.
O=${OUT:-build/s22}; mkdir -p "$O"
rm -rf old && mkdir -p old && cp -r oscar.h oscar_cuda.h cli old/ && patch -p1 -s < tools/issue5/s21/v46_merge_wht.patch || exit 1
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
row() { printf "%-10s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --rot dense --csv "$O/d_$n$b.csv" > /dev/null 2>&1; row "$n $b dense" "$O/d_$n$b.csv"
done
s=$(date +%s); timeout 300 ./build/test_cuda --gpu > "$O/test.log" 2>&1; echo "v46 full: rc=$? $(( $(date +%s) - s )) s $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL"; grep -m 3 FAIL "$O/test.log"
grep "^ok" "$O/test.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 } } } END { print "worst err/tol: " m " (" c ")" }'
