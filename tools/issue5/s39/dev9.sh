#!/bin/sh
# tools/issue5/s39/dev9.sh - prepared for the next session (no device time was left to run it): the whole GPU test on
# the tree with the d 64 fix of the 16-job write blocks (oscar_cuda_kv.append_wsplit 1; the tests take it on odd layers
# of every prefill and in the flush edges' first pass), then two rounds of bench --mode write, 16-job blocks against
# whole tiles, and the block records of one call with 16-job blocks.
O=${OUT:-build/s39_9}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; cat "$O/test.txt"
ab --wsplit 1 0
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec
 timeout 90 ./build/bench_gpu --mode write --wchunks 2048 --wsplit 1 > /dev/null 2>&1)
python3 tools/issue5/s38/abrec.py /tmp/rec.idle /tmp/rec.b2b 2>&1 | grep -v "i-th\|active blocks" | tee "$O/abrec.txt"
