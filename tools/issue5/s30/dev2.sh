#!/bin/sh
# tools/issue5/s30/dev2.sh - run 2: where the dense tile's product costs: B fragments of k step 0 only (PROF 3: a
# quarter of the B reads), no fixed-point epilogue (PROF 4), no codec (PROF 2), no MMAs (PROF 1), the default
OUT=${OUT:-build/s30_2} sh tools/issue5/s30/wsets.sh "" "-DOSCAR_APPEND_PROF=3" "-DOSCAR_APPEND_PROF=4" "-DOSCAR_APPEND_PROF=2" "-DOSCAR_APPEND_PROF=1"
