#!/bin/sh
# tools/issue5/s26/dev5.sh - run 5 of the twenty-sixth session: v55c (cluster launches with the load-balancing
# preference, run 4's only winner) over the batches that take the interleaved decode, and BF16 8 x 32K: merge launch
# (--cmerge 2) / clusters with blocks per SM capped / clusters uncapped (--ccap 2); graph us (events us), two sets.
O=${OUT:-build/s26_5}; mkdir -p "$O"
export NOQUICK=1
ROWS="int2 8,12,16,24 32768 20
int2 8,16 131072 10
int2 32,48 32768 10
bf16 8 32768 10" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--cmerge 2" "|" "|--ccap 2"
true
