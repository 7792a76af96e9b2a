#!/bin/sh
# tools/issue5/s24/dev2.sh - run 2 of the twenty-fourth session, with tools/issue5/s24/v50_bulk_copies.patch
# applied (not kept): v50, history units staged by the copy engine (-DOSCAR_WTMA=1: one cp.async.bulk of the
# whole 64-token page per unit, an mbarrier per stage, unpadded V rows with the score columns' tokens permuted
# 0 1 2 3 5 4 7 6) against the default build (whose oscar_decode_w SASS was the committed one).
OUT=${OUT:-build/s24_2} sh tools/issue5/s24/ab_opt.sh -DOSCAR_WTMA=1 tma \
    "int2 1 8192,32768,131072 30" "int2 8,32 32768,131072 15" "int2 1 32768 30 --rot dense"
