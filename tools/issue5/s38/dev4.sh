#!/bin/sh
# tools/issue5/s38/dev4.sh - run 4: a prefill's sink / window writes as tiles of its flush launch (append_fold, default
# 0) against a launch of their own (--fold 2): the flush-edge tests, two interleaved rounds of bench --mode write,
# and the block records of the folded call (-DOSCAR_APPEND_BREC=1).
# Needs tools/issue5/s38/w44_fold_wfirst.patch applied (git apply, make embed); run 4 ran it without its p.wfirst part.
O=${OUT:-build/s38_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
./build/test_cuda --gpu --only "flush edges" > "$O/flush.log" 2>&1; echo "flush edges rc=$?: $(grep -c '^ok' "$O/flush.log") ok, $(grep -c FAIL "$O/flush.log") FAIL"
grep FAIL "$O/flush.log" | head -5
w() { ./build/bench_gpu --mode write --wchunks 2048 "$@" 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense\|^abrec" |
      sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/' | tr '\n' ' '; echo; }
for r in 1 2; do
  echo "r$r fold 0: $(w --fold 0)"
  echo "r$r fold 2: $(w --fold 2)"
done | tee "$O/write.txt"
(export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=$O/rec; w --fold 0)
python3 tools/issue5/s38/abrec.py $O/rec.idle $O/rec.b2b | tee "$O/abrec.txt"
