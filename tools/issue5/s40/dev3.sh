#!/bin/sh
# tools/issue5/s40/dev3.sh - w47 in the library (oscar_cuda_kv.append_stagger, p.sms; 1.5 us by default): the whole GPU
# test (the flush edges' first pass staggers every oscar_append_w launch), then three rounds of
# bench --mode write interleaved: no stagger (--wstag 2), the default, and 1.0 / 2.0 us (NS) by NVRTC option; then the
# decode table's quick rows on this card (decode kernels unchanged since run s36-2).
O=${OUT:-build/s40_3}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; cat "$O/test.txt"
for r in 1 2 3; do
    echo "r$r wstag 2: $(w --wstag 2)"
    echo "r$r default 1500: $(w)"
    for n in ${NS:-1000 2000}; do echo "r$r stagger $n: $(OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_STAGGER=$n w)"; done
done | tee "$O/write.txt"
(OUT=$O/quick NOTEST=1 timeout 200 sh tools/gpu_issue5.sh quick 2>&1 | tail -16) | tee "$O/quick.txt"
cd "$O" && tar czf quick.tgz quick && rm -rf quick
