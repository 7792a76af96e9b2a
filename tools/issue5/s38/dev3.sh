#!/bin/sh
# tools/issue5/s38/dev3.sh - run 3: every block of the append kernels in one 131,072-token prefill (fitted rotations)
# from an idle GPU and in two calls back to back (-DOSCAR_APPEND_BREC=1, bench --mode write with OSCAR_ABREC_OUT):
# the flush launch, the sink / window launch after it, and the time between them (tools/issue5/s38/abrec.py).
O=${OUT:-build/s38_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2; do
  (export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=$O/rec$r
   ./build/bench_gpu --mode write --wchunks 2048 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense\|^abrec" |
      sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/')
  python3 tools/issue5/s38/abrec.py $O/rec$r.idle $O/rec$r.b2b
done 2>&1 | tee "$O/abrec.txt"
rm -f $O/rec2.*
