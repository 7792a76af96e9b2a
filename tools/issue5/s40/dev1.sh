#!/bin/sh
# tools/issue5/s40/dev1.sh - the run the thirty-ninth session prepared (its dev9.sh) on the lent kind (an H200): the
# whole GPU test on the tree with the d 64 fix of the 16-job write blocks (oscar_cuda_kv.append_wsplit 1; the tests take
# it on odd layers of every prefill and in the flush edges' first pass), then three rounds of bench --mode write, 16-job
# blocks against whole tiles, and the block records of one call with 16-job blocks.
O=${OUT:-build/s40_1}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; cat "$O/test.txt"
for r in 1 2 3; do
    echo "r$r wsplit 1: $(w --wsplit 1)"
    echo "r$r wsplit 0: $(w --wsplit 0)"
done | tee "$O/write.txt"
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec
 timeout 90 ./build/bench_gpu --mode write --wchunks 2048 --wsplit 1 > /dev/null 2>&1)
python3 tools/issue5/s38/abrec.py /tmp/rec.idle /tmp/rec.b2b 2>&1 | grep -v "i-th\|active blocks" | tee "$O/abrec.txt"
cp /tmp/tcp/*.log "$O/" 2>/dev/null; cd "$O" && tar czf tcp_logs.tgz *.log && rm -f *.log
