#!/bin/sh
# tools/issue5/s33/dev3.sh - run 3: OSCAR_APPEND_SMALLW (a tile whose jobs all lie in its first 16 rows splits that MMA
# tile's columns over 4 warps at d 128): the whole GPU test with it (the default now), then the decode step (bench
# --step: one-token appends, then attend) with it and without, two rounds interleaved, H and fitted rotations.
# (OSCAR_APPEND_SMALLW was replaced by the kernel oscar_append_s before the session ended: this script is the record of its run)
O=${OUT:-build/s33_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$O/test.txt"; grep -h "flush edges" /tmp/tcp/*.log | head -30 > "$O/flush.txt"
for r in 1 2; do
    for o in "" "-DOSCAR_APPEND_SMALLW=0"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" ./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step --mode int2 --rot dense > "$O/d$r$o.txt" 2>&1
        OSCAR_CUDA_NVRTC_OPTIONS="$o" ./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step > "$O/h$r$o.txt" 2>&1
        echo "== round $r [$o]"; grep -h "^step" "$O/d$r$o.txt" | sed 's/^step int2/dense int2/'; grep -h "^step" "$O/h$r$o.txt"
    done
done | tee "$O/summary.txt"
grep -h "^int2\|^bf16" "$O/h1.txt" | head -8
true
