#!/bin/sh
# tools/issue5/s30/dev1.sh - run 1 of the thirtieth session: the dense write path's product without the
# Xl.Rl term (OSCAR_APPEND_Q3=1, timing only: three IMMAs per k step instead of four and a 32-bit epilogue)
# against the default, with the no-MMA build (OSCAR_APPEND_PROF=1) for the floor; three rounds, interleaved.
OUT=${OUT:-build/s30_1} sh tools/issue5/s30/wsets.sh "" "-DOSCAR_APPEND_Q3=1" "-DOSCAR_APPEND_PROF=1" "-DOSCAR_APPEND_Q3=1 -DOSCAR_APPEND_MINB=4"
