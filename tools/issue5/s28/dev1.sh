#!/bin/sh
# tools/issue5/s28/dev1.sh - run 1 of the twenty-eighth session (written for the compile-time form -DOSCAR_WPFL2=N of v57, in
# tools/issue5/s28/v57_v58.patch; the library now takes it at run time: oscar_cuda_kv.l2pf, bench --l2pf): each warp's first N INT2 units prefetched into
# L2 by bulk prefetches before the decode's wait for the previous kernel (-DOSCAR_WPFL2=N, v57). Quick test with
# N = 8 (every lane prefetching), then graph us (events us) against the library, two sets, H and fitted rotations.
O=${OUT:-build/s28_1}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPFL2=8" timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick WPFL2=8: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 8 "FAIL\|rror" "$O/quick.log"
NOQUICK=1 ROWS="int2 1 8192,32768,131072 20
int2 8 32768 20" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|" "-DOSCAR_WPFL2=1|" "-DOSCAR_WPFL2=2|" "-DOSCAR_WPFL2=8|" "|--rot dense" "-DOSCAR_WPFL2=2|--rot dense"
true
