#!/bin/sh
# tools/issue5/s40/dev2.sh - w47: oscar_append_w's first-wave blocks started by rank on their SM, N ns apart
# (-DOSCAR_APPEND_STAGGER=N, K 8): the flush launch's span by block records, then three rounds of bench --mode write
# (16-job write blocks, the new default) per N interleaved, then the flush edges with one N.
O=${OUT:-build/s40_2}; . tools/issue5/s38/wlib.sh
VS="0 1500 2500 3500"
for n in $VS; do
    (export OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_BREC=1 -DOSCAR_APPEND_STAGGER=$n" OSCAR_ABREC_OUT=/tmp/rec$n
     timeout 90 ./build/bench_gpu --mode write --wchunks 2048 > /dev/null 2>&1)
    python3 tools/issue5/s38/abrec.py /tmp/rec$n.idle /tmp/rec$n.b2b > "$O/abrec$n.txt" 2>&1
    echo "stagger $n: $(grep -A3 'oscar_append_w #0' "$O/abrec$n.txt" | grep -o '(7[0-9.]* us)\|first wave [0-9.]*, middle [0-9.]*' | tr '\n' ' ')"
done
for r in 1 2 3; do
    for n in $VS; do echo "r$r stagger $n: $(OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_STAGGER=$n w)"; done
done | tee "$O/write.txt"
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_STAGGER=2500; flush_edges)
cd "$O" && tar czf abrec.tgz abrec*.txt && rm -f abrec*.txt
