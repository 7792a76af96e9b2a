#!/bin/sh
# tools/issue5/s38/dev6.sh - run 6: w45, a prefill's sink / window launch waiting for its flush launch at its end
# (append_wlate 0, the default) against at its start (--wlate 2): the whole GPU test (tools/test_cuda_par.sh; the flush
# edges run both), then two interleaved rounds of bench --mode write.
# Needs tools/issue5/s38/w45_wlate.patch applied (git apply, make embed).
O=${OUT:-build/s38_6}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; tail -3 "$O/test.txt"; grep FAIL "$O/test.txt" | head -5
w() { ./build/bench_gpu --mode write --wchunks 2048 "$@" 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense" |
      sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/' | tr '\n' ' '; echo; }
for r in 1 2; do
  echo "r$r wlate 0: $(w --wlate 0)"
  echo "r$r wlate 2: $(w --wlate 2)"
done | tee "$O/write.txt"
