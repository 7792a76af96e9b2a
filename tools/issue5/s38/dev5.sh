#!/bin/sh
# tools/issue5/s38/dev5.sh - run 5: a prefill's sink / window writes as tiles of its flush launch (append_fold, default
# 0) (the write tiles first in launch order, p.wfirst) against a launch of their own (--fold 2): the flush-edge tests, two interleaved rounds of bench --mode write,
# and the block records of both (-DOSCAR_APPEND_BREC=1).
# Needs tools/issue5/s38/w44_fold_wfirst.patch applied (git apply, make embed).
O=${OUT:-build/s38_5}; . tools/issue5/s38/wlib.sh
flush_edges
ab --fold 0 2
for f in 0 2; do (export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=$O/rec$f; w --fold $f); done
python3 tools/issue5/s38/abrec.py $O/rec0.idle $O/rec0.b2b $O/rec2.idle $O/rec2.b2b | tee "$O/abrec.txt"
rm -f $O/rec*.b2b
