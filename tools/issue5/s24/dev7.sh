#!/bin/sh
# tools/issue5/s24/dev7.sh - run 7 of the twenty-fourth session: v51 for INT2 caches without its spill in the
# unit loop (-DOSCAR_WIL=1; the lane number and the V rows' staging offset recomputed in each issue: d 128 G 4
# spills 8 bytes, stored in the prologue and reloaded after the loop) against the default build (INT2 SASS as
# committed).
OUT=${OUT:-build/s24_7} sh tools/issue5/s24/ab_opt.sh -DOSCAR_WIL=1 wil \
    "int2 1 8192,32768,131072 30" "int2 8,32 32768,131072 15"
