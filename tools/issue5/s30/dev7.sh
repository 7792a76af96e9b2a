#!/bin/sh
# tools/issue5/s30/dev7.sh - run 7: L1 eviction priorities in the dense tile (OSCAR_APPEND_L1P: 1 the B fragments
# evict_last, 2 pass 2's row loads evict_first, 3 both), against the default, two rounds.
# (L1P: `patch -p1 < tools/issue5/s30/w35_pf_l1p.patch` and `make embed` first)
OUT=${OUT:-build/s30_7} R=2 sh tools/issue5/s30/wsets.sh "" "-DOSCAR_APPEND_L1P=1" "-DOSCAR_APPEND_L1P=2" "-DOSCAR_APPEND_L1P=3"
