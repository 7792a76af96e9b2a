#!/bin/sh
# tools/issue5/s26/dev1.sh - run 1 of the twenty-sixth session: the issue-5 table on the committed tree (whatever
# card the call gets), then batch-1 split counts with 4- and 8-warp blocks (toward a cluster merge: one
# cluster of <= 16 blocks per KV head), then fitted (dense) rotations at batch 2 / 4 with 2 blocks per SM.
O=${OUT:-build/s26_1}; mkdir -p "$O"
OUT="$O/table" sh tools/issue5/s25/dev10.sh 2>&1 | tail -40
export NOQUICK=1
echo "== batch 1 splits (graph us (events us))"
ROWS="int2 1 8192,32768,131072 20" OUT="$O/b1" sh tools/issue5/s25/sets.sh "|" "|--splits 16" "|--splits 8" "-DOSCAR_WNW=8|--splits 16" "-DOSCAR_WNW=8|--splits 8" "-DOSCAR_WNW=8|"
echo "== dense batch 2 / 4"
ROWS="int2 2 32768,131072 20" OUT="$O/d2" sh tools/issue5/s25/sets.sh "|--rot dense" "|--rot dense --splits 16" "|--rot dense --splits 24"
ROWS="int2 4 32768,131072 20" OUT="$O/d4" sh tools/issue5/s25/sets.sh "|--rot dense" "|--rot dense --splits 8" "|--rot dense --splits 12"
true
