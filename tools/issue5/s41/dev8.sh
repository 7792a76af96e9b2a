#!/bin/sh
# tools/issue5/s41/dev8.sh - where w45b's ~1.5 us per later append goes (runs s41-5 / s41-7): block records over the
# chunked prefill (64 appends of 2,048 tokens, fitted rotations; -DOSCAR_APPEND_BREC=1, OSCAR_ABREC_CHUNK=2048), the
# first append's write launch waiting at its start (--wlate 2) against at its end (--wlate 1); idle time between the
# launches against the blocks' lengths (tools/issue5/s41/abrec_chunks.py).
O=${OUT:-build/s41_8}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
for r in ${ROUNDS:-1}; do for wl in 2 1; do
    OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec_${wl}_$r OSCAR_ABREC_CHUNK=2048 \
        timeout 100 ./build/bench_gpu --mode write --wchunks 2048 --wlate $wl 2>&1 | grep "^abrec chunk" | sed "s/^/r$r wlate $wl: /"
done; done | tee "$O/events.txt"
python3 tools/issue5/s41/abrec_chunks.py /tmp/rec_2_*.chunk /tmp/rec_1_*.chunk | tee "$O/chunks.txt"
