#!/bin/sh
# tools/issue5/s28/dev4.sh - run 4 of the twenty-eighth session (the compile-time form of v57, as in dev1.sh): the L2 prefetch before the decode's wait (v57,
# -DOSCAR_WPFL2=N) at batch 2-32, where run 1 found 8 x 32K 1 us faster in a graph: graph us (events us), two sets.
O=${OUT:-build/s28_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
NOQUICK=1 ROWS="int2 8 32768,131072 20
int2 2,16,32 32768 20
int2 32 131072 10" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|" "-DOSCAR_WPFL2=1|" "-DOSCAR_WPFL2=2|"
true
