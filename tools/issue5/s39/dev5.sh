#!/bin/sh
# tools/issue5/s39/dev5.sh - run 5: the session's final kernels and host code through the whole GPU test (with the new
# graph-capture group), then the write path's blocks on a timeline with the write launch's wait at its end (w45b;
# -DOSCAR_APPEND_BREC=1, tools/issue5/s38/abrec.py), one call from an idle GPU and two back to back.
O=${OUT:-build/s39_5}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; cat "$O/test.txt"
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec
 timeout 90 ./build/bench_gpu --mode write --wchunks 2048 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense" |
    sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/')
python3 tools/issue5/s38/abrec.py /tmp/rec.idle /tmp/rec.b2b 2>&1 | tee "$O/abrec.txt"
