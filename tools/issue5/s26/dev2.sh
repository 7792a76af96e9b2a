#!/bin/sh
# tools/issue5/s26/dev2.sh - run 2 of the twenty-sixth session: v55 (the splits of a (sequence, KV head) as one
# thread block cluster that merges through distributed shared memory, no merge launch): quick test, then graph us
# (events us) with the cluster merge off (--cmerge 2), automatic, and forced (--cmerge 1: splits capped at the
# largest cluster), two sets each.
O=${OUT:-build/s26_2}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 250 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 8 "FAIL\|error" "$O/quick.log"
export NOQUICK=1
ROWS="int2 1 8192,32768,131072 20
int2 2,4 32768,131072 20
int2 8 32768,131072 20
int2 32 32768,131072 10
int2 64 32768 10
bf16 8 32768 10" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--cmerge 2" "|" "|--cmerge 1"
true
