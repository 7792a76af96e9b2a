#!/bin/sh
# tools/issue5/s33/dev7.sh - run 7: the write path's chunked prefills with the append kernels under programmatic
# dependent launch (--apdl 0) and without (--apdl 2), three rounds, with the host's time in the calls (run 6 had one
# H figure of 2.307 ms against 1.035 in the round before); and the decode step once more each way.
O=${OUT:-build/s33_7}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2 3; do
    for o in 0 2; do
        ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --apdl $o --wchunks 2048,512 > /tmp/w.log 2>&1
        echo "== round $r --apdl $o"; grep -h "^diag write path" /tmp/w.log | grep -v "pages of" | sed 's/ (K and V, fp32 in)//; s/, [0-9.]* MB read+written//; s/131072 tokens x 8 KV heads x d 128//' | cut -c1-230
    done
done | tee "$O/write.txt"
for o in 0 2; do
    ./build/bench_gpu --batch 1,8 --ctx 8192 --iters 50 --step --apdl $o > /tmp/s.txt 2>&1
    ./build/bench_gpu --batch 1,8 --ctx 8192 --iters 50 --step --apdl $o --mode int2 --rot dense >> /tmp/s.txt 2>&1
    echo "== --apdl $o"; grep -h "^step" /tmp/s.txt
done | tee "$O/step.txt"
true
