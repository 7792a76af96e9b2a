#!/bin/sh
# tools/issue5/s39/dev7.sh - run 7: the write launch's blocks with w45b: when each starts, when its own work is done
# (-DOSCAR_APPEND_BREC=1 now marks that point before the block's wait for the flush) and when it ends; one call from an
# idle GPU and two back to back, two rounds.
O=${OUT:-build/s39_7}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2; do
  (export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec$r
   timeout 90 ./build/bench_gpu --mode write --wchunks 2048 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense" |
      sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/')
  python3 tools/issue5/s38/abrec.py /tmp/rec$r.idle /tmp/rec$r.b2b
done 2>&1 | tee "$O/abrec.txt"
