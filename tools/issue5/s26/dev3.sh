#!/bin/sh
# tools/issue5/s26/dev3.sh - run 3 of the twenty-sixth session: v55 with the clusters' blocks spread over the SMs
# (scheduling preference, --cpolicy 0) against the driver's default placement (--cpolicy 1, run 2's) and the
# merge launch (--cmerge 2); graph us (events us), two sets each.
O=${OUT:-build/s26_3}; mkdir -p "$O"
export NOQUICK=1
ROWS="int2 1 8192,32768,131072 20
int2 2,4 32768,131072 20
int2 8 32768,131072 20
int2 64 32768 10" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--cmerge 2" "|" "|--cpolicy 1" "|--cmerge 1" "|--cmerge 1 --cpolicy 2"
true
