#!/bin/sh
# tools/issue5/s38/dev7.sh - run 7: w45b, the write launch behind a prefill's flush waiting for it at its end, with the
# input rows' visibility by an epoch the flush's block (0, 0) publishes (release) after its wait and the write blocks
# take (acquire): the flush-edge tests (both settings) and two interleaved rounds of bench --mode write.
O=${OUT:-build/s38_7}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 120 ./build/test_cuda --gpu --only "flush edges" > "$O/flush.log" 2>&1; frc=$?
echo "flush edges rc=$frc: $(grep -c '^ok' "$O/flush.log") ok, $(grep -c FAIL "$O/flush.log") FAIL"
grep FAIL "$O/flush.log" | head -5
[ "$frc" = 0 ] || exit 1
w() { timeout 60 ./build/bench_gpu --mode write --wchunks 2048 "$@" 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense" |
      sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/' | tr '\n' ' '; echo; }
for r in 1 2; do
  echo "r$r wlate 0: $(w --wlate 0)"
  echo "r$r wlate 2: $(w --wlate 2)"
done | tee "$O/write.txt"
