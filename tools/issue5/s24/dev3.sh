#!/bin/sh
# tools/issue5/s24/dev3.sh - run 3 of the twenty-fourth session: v51, a block's units taken in turn by its warps
# (-DOSCAR_WIL=1: warp w walks units ua + w, ua + w + 4, ... of its block's range; one region per block in
# flight instead of four) against the default build as it was then (WIL off for both kinds). Question: do
# fewer concurrent streams (264 instead of 1,056 at 1 x 128K; 512 instead of 2,048 at 8 x 32K) let DRAM
# deliver more (run s23-5: 16 warps per SM drew less from DRAM than 8)? INT2 d 128 G 4 spills 52 bytes with
# the option (the staging's loop invariants, as v35); BF16 (98 registers) does not, so BF16 is the clean test.
# (Since run 3 the default is WIL on for BF16 caches: rerun with -DOSCAR_WIL=0 as the option to compare.)
OUT=${OUT:-build/s24_3} sh tools/issue5/s24/ab_opt.sh -DOSCAR_WIL=1 wil \
    "bf16 1 32768,131072 30" "bf16 8 32768 15" "int2 1 8192,32768,131072 30" "int2 8,32 32768,131072 15"
