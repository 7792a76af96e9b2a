#!/bin/sh
# tools/issue5/s25/dev20.sh - run 20 of the twenty-fifth session: v53 (BF16 caches below 64 pairs at 2 blocks per
# SM) against the committed tree: quick test, A/B (BF16 rows that change, INT2 rows that must not), whole test.
SHAPES="1:8192:30 1:32768:30 1:131072:20 2:32768:20 4:32768:20 8:32768:20" MODE=bf16 TEST=0 OUT=${OUT:-build/s25_20} sh tools/issue5/s25/dev8.sh
SHAPES="1:32768:30 8:32768:20" MODE=int2 NOQUICK=1 TEST=1 OUT=${OUT:-build/s25_20} sh tools/issue5/s25/dev8.sh
