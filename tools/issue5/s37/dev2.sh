#!/bin/sh
# tools/issue5/s37/dev2.sh - run 2 (H100; build/s37_base = the previous commit's bench_gpu, carried): a prefill's new pages as one
# int where they are consecutive, and its sink / window writes as tiles of the flush launch (append_fold). The flush-edge tests
# (byte for byte against the CPU), then the write path, three rounds interleaved: old / new / new with --fold 2; then the whole
# GPU test (sm_90a kernels).
O=${OUT:-build/s37_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 200 ./build/test_cuda --gpu --only "flush edges" > "$O/flush.txt" 2>&1; echo "flush edges rc=$? in $(( $(date +%s) - t0 )) s" >> "$O/flush.txt"
grep -c "^ok" "$O/flush.txt"; grep "^FAIL\|pages in the param\|rc=" "$O/flush.txt" | head -12
for r in 1 2 3; do
    for v in old new nofold; do
        B=./build/bench_gpu; X=""
        case $v in old) B=./build/s37_base ;; nofold) X="--fold 2" ;; esac
        $B --mode write --wchunks 2048 $X 2>&1 | grep "^copy\|diag write" | grep -v wht_warp | sed "s/^/r$r $v /"
    done
done > "$O/write.txt"
# one line per (round, version): copy GB/s, H one call, dense one call, dense b2b, dense 2048-token appends (ms)
awk -f tools/issue5/s37/wsummary.awk "$O/write.txt" | tee "$O/summary.txt"
grep -i "error\|differ" "$O/write.txt" | grep -v " 0 bytes differ" | head -3
t0=$(date +%s)
timeout 170 sh tools/test_cuda_par.sh /tmp/tcp > /tmp/t90.txt 2>&1; echo "sm_90a kernels: test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" >> /tmp/t90.txt
for f in /tmp/t90.txt; do tail -n 2 $f; done | tee -a "$O/summary.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5 | tee -a "$O/summary.txt"
