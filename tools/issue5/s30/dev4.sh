#!/bin/sh
# tools/issue5/s30/dev4.sh - run 4: more blocks per SM for the dense write tile: n-tiles per accumulator chunk
# (OSCAR_APPEND_CNT, 4 by default) against the register bound (OSCAR_APPEND_MINB), two rounds.
OUT=${OUT:-build/s30_4} R=2 sh tools/issue5/s30/wsets.sh "" "-DOSCAR_APPEND_CNT=1 -DOSCAR_APPEND_MINB=6" "-DOSCAR_APPEND_CNT=1 -DOSCAR_APPEND_MINB=7" \
  "-DOSCAR_APPEND_CNT=1 -DOSCAR_APPEND_MINB=8" "-DOSCAR_APPEND_CNT=2 -DOSCAR_APPEND_MINB=6" "-DOSCAR_APPEND_CNT=1 -DOSCAR_APPEND_MINB=6 -DOSCAR_APPEND_WLOCAL=1"
