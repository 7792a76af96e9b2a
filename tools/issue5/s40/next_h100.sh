#!/bin/sh
# tools/issue5/s40/next_h100.sh - for the next session lent an H100 (not run here: this session was lent H200s only):
# the whole GPU test, then w47's A/B on the H100 (three rounds of bench --mode write: no stagger (--wstag 2), the
# default 1.5 us, 2.0 and 2.5 us by NVRTC option), then the issue table without its tests.
O=${OUT:-build/next_h100}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; cat "$O/test.txt"
for r in 1 2 3; do
    echo "r$r wstag 2: $(w --wstag 2)"
    echo "r$r default 1500: $(w)"
    echo "r$r stagger 2000: $(OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_STAGGER=2000 w)"
    echo "r$r stagger 2500: $(OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_STAGGER=2500 w)"
done | tee "$O/write.txt"
(OUT=$O/table NOTEST=1 DIAG=1 timeout 400 sh tools/gpu_issue5.sh full 2>&1 | tail -40) | tee "$O/table.txt"
cd "$O" && tar czf table.tgz table && rm -rf table
