#!/bin/sh
# tools/issue5/s25/dev23.sh - run 23 of the twenty-fifth session: v54 (INT2 caches of 2-7 sequences, H
# rotations, at 2 blocks per SM) against the committed tree: quick test, A/B (INT2 H and dense rows), whole test.
SHAPES="2:32768:20 2:131072:20 3:32768:20 4:32768:20 4:131072:20 6:32768:20 1:32768:30 8:32768:20" TEST=0 OUT=${OUT:-build/s25_23} sh tools/issue5/s25/dev8.sh
SHAPES="2:32768:20 4:32768:20" EXTRA="--rot dense" NOQUICK=1 TEST=1 OUT=${OUT:-build/s25_23}/dense sh tools/issue5/s25/dev8.sh
