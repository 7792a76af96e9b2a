#!/bin/sh
# tools/issue5/s25/dev9.sh - run 9 of the twenty-fifth session: v52 in its final form (the slot-filling count kept
# where it costs less) against the committed tree: dev8.sh's A/B over these shapes, then the whole test.
SHAPES="8:32768:20 10:32768:20 12:32768:20 15:32768:20 16:32768:20 20:32768:10 24:32768:10 40:32768:10 48:32768:10 8:131072:10 16:131072:10" \
    TEST=1 OUT=${OUT:-build/s25_9} exec sh tools/issue5/s25/dev8.sh
