#!/bin/sh
# tools/issue5/s38/dev4.sh - run 4: a prefill's sink / window writes as tiles of its flush launch (append_fold, default
# 0) against a launch of their own (--fold 2): the flush-edge tests, two interleaved rounds of bench --mode write,
# and the block records of the folded call (-DOSCAR_APPEND_BREC=1).
# Needs tools/issue5/s38/w44_fold_wfirst.patch applied (git apply, make embed); run 4 ran it without its p.wfirst part.
O=${OUT:-build/s38_4}; . tools/issue5/s38/wlib.sh
flush_edges
ab --fold 0 2
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=$O/rec; w --fold 0)
python3 tools/issue5/s38/abrec.py $O/rec.idle $O/rec.b2b | tee "$O/abrec.txt"
