#!/bin/sh
# tools/issue5/s20/dev2.sh - twentieth session, device run 2 (repository root): host cost per launch
# (tools/ubench_launch.cu, carried as build/ubench_launch), batch-1 split counts at 8K / 16K, the write
# path with and without centering + the gain encoder (bench --diag --quality), then the whole
# test_cuda --gpu on the committed kernels.
O=${OUT:-build/s20b}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
[ -x build/ubench_launch ] && timeout 60 ./build/ubench_launch 2>&1 | tee "$O/launch.log"
show() { awk -F, 'NR > 1 { printf "  %-5s %5s %8s  us %7.1f  b2b %7.1f  graph %7.1f  %5.1f%%  host %5.1f\n", $1, $2, $3, $8, $10, $15, $14, $16 }' "$1"; }
for s in 0 16 20 24 28 33 0; do
    timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,16384 --iters 50 --mode int2 --splits $s --csv "$O/sp$s.csv" > "$O/sp$s.log" 2>&1
    echo "splits $s"; show "$O/sp$s.csv"
done
line() { grep -h "diag write path, dense\|diag write path, H.*default" "$2" | sed "s/ tokens x .*one append call: / /; s/, [0-9.]* MB read+written, [0-9]* GB\/s = / = /; s/; host.*//; s/^diag write path, /[$1] /"; }
for rep in 1 2; do
    for q in "" --quality; do
        timeout 120 ./build/bench_gpu --diag $q --batch 1 --ctx 8192 --iters 3 > "$O/w${q#--}_$rep.log" 2>&1; line "write ${q:-default} $rep" "$O/w${q#--}_$rep.log"
    done
done
grep -h "^copy" "$O/w_1.log" | head -1
timeout 330 ./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 6 FAIL "$O/full.log"
grep "^ok" "$O/full.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 " " $3 } } } END { print "worst err/tol: " m " (" c ")" }'
true
