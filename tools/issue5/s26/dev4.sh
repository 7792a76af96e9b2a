#!/bin/sh
# tools/issue5/s26/dev4.sh - run 4 of the twenty-sixth session: v55b, the cluster-merge decode lets the next kernel in
# only at its end (run 3: placed early, the next call's blocks made a graph slower than events), and a cluster
# launch asks for enough shared memory that no SM takes more blocks than an even spread (--ccap 2: not);
# quick test, then graph us (events us), two sets each.
O=${OUT:-build/s26_4}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 250 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 8 "FAIL\|error" "$O/quick.log"
export NOQUICK=1
ROWS="int2 1 8192,32768,131072 20
int2 2,4 32768,131072 20
int2 8 32768,131072 20
int2 32 32768 10
int2 64 32768 10" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--cmerge 2" "|" "|--ccap 2" "|--cpolicy 2" "|--cmerge 1"
true
