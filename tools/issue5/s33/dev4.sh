#!/bin/sh
# tools/issue5/s33/dev4.sh - run 4: OSCAR_APPEND_SMALLW generalised (tiles whose jobs fill 1 or 2 MMA tiles: 4 or 2
# warps per MMA tile): the whole GPU test, the dense decode step at batch 1-32 with it and without (two rounds), and
# the write path (d 128: one call and 2,048-token appends; d 256) with it and without.
# (OSCAR_APPEND_SMALLW was replaced by the kernel oscar_append_s before the session ended: this script is the record of its run)
O=${OUT:-build/s33_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$O/test.txt"
for r in 1 2; do
    for o in "" "-DOSCAR_APPEND_SMALLW=0"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" ./build/bench_gpu --batch 1,8,16,32 --ctx 8192 --iters 50 --step --mode int2 --rot dense > /tmp/s.txt 2>&1
        echo "== round $r [$o]"; grep -h "^step" /tmp/s.txt | sed 's/^step int2/dense int2/'
    done
done | tee "$O/step.txt"
ROUNDS=2 sh tools/issue5/s33/wopts.sh "-DOSCAR_APPEND_SMALLW=0" | tee "$O/write.txt"
for o in "" "-DOSCAR_APPEND_SMALLW=0"; do
    OSCAR_CUDA_NVRTC_OPTIONS="$o" ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --dim 256 --group 128 > /tmp/w.log 2>&1
    echo "[d 256 $o] $(grep -h '^diag write path, dense' /tmp/w.log | sed 's/ (K and V.*one append call: / one call /; s/, [0-9.]* MB read.*= / = /; s/ of copy.*/ of copy/' | cut -c1-200 | tr '\n' ' ')"
done | tee -a "$O/write.txt"
true
