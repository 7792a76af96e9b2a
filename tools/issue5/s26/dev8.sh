#!/bin/sh
# tools/issue5/s26/dev8.sh - run 8 of the twenty-sixth session, on the v55 commit: (1) split counts for the cluster
# merge at the interleaved batches (the v52 rule was measured with the merge launch); (2) batch 1 with 8-warp blocks
# (-DOSCAR_WNW=8) at 16 splits, one cluster of 16 per KV head (--cmerge 1) against the merge launch (--cmerge 2)
# and the default; graph us (events us), two sets each.
O=${OUT:-build/s26_8}; mkdir -p "$O"
export NOQUICK=1
echo "== 8 x 32K / 8 x 128K / 16 x 32K / 12 x 32K split counts"
ROWS="int2 8 32768,131072 20" OUT="$O/s8" sh tools/issue5/s25/sets.sh "|" "|--splits 4" "|--splits 8" "|--splits 12"
ROWS="int2 12,16 32768 20" OUT="$O/s16" sh tools/issue5/s25/sets.sh "|" "|--splits 3" "|--splits 6"
echo "== batch 1, 8-warp blocks, 16 splits"
ROWS="int2 1 8192,32768,131072 20" OUT="$O/b1" sh tools/issue5/s25/sets.sh "|" "-DOSCAR_WNW=8|--splits 16 --cmerge 2" "-DOSCAR_WNW=8|--splits 16 --cmerge 1" "-DOSCAR_WNW=8|--splits 8 --cmerge 1"
true
