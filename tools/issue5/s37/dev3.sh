#!/bin/sh
# tools/issue5/s37/dev3.sh - run 3 (H100): w43, oscar_append_w's grid as (Hkv * 2, tiles) (-DOSCAR_APPEND_XT=1: a tile's 16 (KV head,
# K|V) blocks adjacent in launch order, so a wave reads whole input rows) against the default (tiles, Hkv * 2). The flush-edge
# tests with XT (oscar_append_w byte for byte against the CPU), then the write path, three rounds interleaved.
O=${OUT:-build/s37_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_XT=1" timeout 200 ./build/test_cuda --gpu --only "flush edges" > "$O/flush.txt" 2>&1; echo "flush edges (XT) rc=$? in $(( $(date +%s) - t0 )) s" >> "$O/flush.txt"
echo "ok lines: $(grep -c '^ok' "$O/flush.txt")"; grep "^FAIL\|rc=" "$O/flush.txt" | head -8
for r in 1 2 3; do
    for v in def xt; do
        NO=""; [ $v = xt ] && NO="-DOSCAR_APPEND_XT=1"
        OSCAR_CUDA_NVRTC_OPTIONS="$NO" ./build/bench_gpu --mode write --wchunks 2048 2>&1 | grep "^copy\|diag write" | grep -v wht_warp | sed "s/^/r$r $v /"
    done
done > "$O/write.txt"
awk -f tools/issue5/s37/wsummary.awk "$O/write.txt" | tee "$O/summary.txt"
grep -i "error\|differ" "$O/write.txt" | grep -v " 0 bytes differ" | head -3
