#!/bin/sh
# tools/issue5/s30/dev6.sh - run 6: the B fragment loads without the MMAs (OSCAR_APPEND_PROF=6, timing only), and the
# warpgroup product (OSCAR_APPEND_WGMMA=1, B copied to shared memory per tile; w23) with and without its MMAs, against
# the default, two rounds.
OUT=${OUT:-build/s30_6} R=2 sh tools/issue5/s30/wsets.sh "" "-DOSCAR_APPEND_PROF=6" "-DOSCAR_APPEND_WGMMA=1" "-DOSCAR_APPEND_WGMMA=1 -DOSCAR_APPEND_PROF=1"
