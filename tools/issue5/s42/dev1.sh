#!/bin/sh
# tools/issue5/s42/dev1.sh - the forty-first session's final tree (b302c17: the GPU harness's odd layers take
# append_wlate 1 with append_wsplit 0, not run on a GPU before): the whole GPU test; then the block records over the
# chunked prefill (s41/dev8.sh, two rounds: where an append after a late-waiting first one spends its ~1.5 us).
O=${OUT:-build/s42_1}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 200 sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/test.txt"
tail -3 "$O/test.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5
OUT="$O" ROUNDS="1 2" sh tools/issue5/s41/dev8.sh
cp /tmp/rec_*.chunk "$O/" 2>/dev/null; ls -la "$O"
cd "$O" && tar czf recs.tgz *.chunk 2>/dev/null; rm -f *.chunk
