#!/bin/sh
# tools/issue5/s24/dev10.sh - run 10 of the twenty-fourth session: the interleaved decode chosen by batch
# (oscar_decode_w_il: the kernel body as a template, instantiated with WIG = 1 and 4; the host launches the
# second where the batch holds >= 64 KV heads, INT2 d 128 G 4 only) against the committed tree (old/ from
# `git show HEAD:`). Quick test (odd layers: the interleaved kernel), then graph us (events us), old / new twice.
# Prepared, not run (the session's device time was spent): apply tools/issue5/s24/v51b_by_batch.patch (git apply),
# `make embed`, fill old/ from `git show HEAD:` (oscar.h, oscar_cuda.h, cli/bench_gpu.c), run this, then the
# whole test_cuda --gpu before it may become the default. Checked here: it compiles (test_cuda --compile: 136
# variants), the WIG 1 instantiation has the committed instruction count (3,288) but another register
# allocation, so its own speed needs this A/B.
O=${OUT:-build/s24_10}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 5 "FAIL\|error" "$O/quick.log"
row() { printf "%-8s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for v in old new old new; do
    b=./build/bench_gpu; [ $v = old ] && b=./build/bench_old
    timeout 60 $b --batch 1 --ctx 32768,131072 --iters 30 --mode int2 --csv "$O/a.csv" > "$O/a_$v.log" 2>&1; row "$v" "$O/a.csv"
    timeout 60 $b --batch 8,32 --ctx 32768 --iters 15 --mode int2 --csv "$O/b.csv" > /dev/null 2>&1; row "$v" "$O/b.csv"
done
grep -h "^copy" "$O"/a_old.log | head -1
true
