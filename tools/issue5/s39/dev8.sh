#!/bin/sh
# tools/issue5/s39/dev8.sh - run 8: the write launch behind a prefill's flush in blocks of 16 jobs (oscar_append_s with
# p.tr 16, append_wsplit 0) against whole tiles (--wsplit 2): the whole GPU test (the flush edges run both), two rounds
# of bench --mode write interleaved, and the block records of one call with the new default.
# (In the code this ran, append_wsplit 0 meant blocks of 16 jobs and 2 whole tiles, the default then being 0; after run
# 8's d 64 failures it became opt-in: 1 blocks of 16 jobs, 0 (init) whole tiles.)
O=${OUT:-build/s39_8}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; tail -2 "$O/test.txt"; grep FAIL "$O/test.txt" | head -5
ab --wsplit 1 0
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec
 timeout 90 ./build/bench_gpu --mode write --wchunks 2048 > /dev/null 2>&1)
python3 tools/issue5/s38/abrec.py /tmp/rec.idle /tmp/rec.b2b 2>&1 | grep -v "i-th\|active blocks" | tee "$O/abrec.txt"
