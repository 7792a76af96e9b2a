#!/bin/sh
# tools/issue5/s33/dev5.sh - run 5: oscar_append_s (a kernel of its own for append launches of <= 32 jobs per (KV
# head, K|V), oscar_append unchanged): the whole GPU test (flush edges: every launch through it in one pass, the small
# ones in another, none in a third), the decode step with it (--small 0) and without (--small 2), two rounds
# interleaved, fitted rotations at batch 1-32; H rotations and BF16 once; the write path once.
O=${OUT:-build/s33_5}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$O/test.txt"; grep -h "flush edges.*dense" /tmp/tcp/*.log > "$O/flush.txt"; cat "$O/flush.txt"
for r in 1 2; do
    for o in 0 2; do
        ./build/bench_gpu --batch 1,8,16,32 --ctx 8192 --iters 50 --step --small $o --mode int2 --rot dense > /tmp/s.txt 2>&1
        ./build/bench_gpu --batch 1 --ctx 32768 --iters 50 --step --small $o --mode int2 --rot dense >> /tmp/s.txt 2>&1
        echo "== round $r --small $o"; grep -h "^step" /tmp/s.txt | sed 's/^step int2/dense int2/'
    done
done | tee "$O/step.txt"
./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step > "$O/step_h.txt" 2>&1
grep -h "^step\|^int2\|^bf16" "$O/step_h.txt"
ROUNDS=1 sh tools/issue5/s33/wopts.sh | tee "$O/write.txt"
true
