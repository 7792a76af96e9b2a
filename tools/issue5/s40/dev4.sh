#!/bin/sh
# tools/issue5/s40/dev4.sh - w48: a prefill's flush through oscar_append_w with its last half wave of tiles in a launch of
# its own (16-job blocks through oscar_append_s, p.j0, under PDL with the write launch's epoch and wait at the end;
# oscar_cuda_kv.append_wtail): the whole GPU test (the flush edges' first pass splits every such flush), three rounds of
# bench --mode write interleaved, one launch (--wtail 2) / the split (default), then the block records of one call.
O=${OUT:-build/s40_4}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; cat "$O/test.txt"
grep -h "flush edges" /tmp/tcp/*.log | head -40 > "$O/flush.txt"
for r in 1 2 3; do
    echo "r$r wtail 2: $(w --wtail 2)"
    echo "r$r wtail 0: $(w)"
done | tee "$O/write.txt"
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec
 timeout 90 ./build/bench_gpu --mode write --wchunks 2048 > /dev/null 2>&1)
python3 tools/issue5/s38/abrec.py /tmp/rec.idle /tmp/rec.b2b 2>&1 | grep -v "i-th" > "$O/abrec.txt"; head -14 "$O/abrec.txt"
