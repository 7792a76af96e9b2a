#!/bin/sh
# tools/issue5/s33/dev6.sh - run 6: the append kernels launched with programmatic dependent launch (wait for the
# previous kernel first thing, then let the next start: oscar_cuda_kv.append_pdl, bench --apdl): the whole GPU test,
# then the decode step (bench --step) and the write path with it (--apdl 0) and without (--apdl 2), two rounds.
O=${OUT:-build/s33_6}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$O/test.txt"
for r in 1 2; do
    for o in 0 2; do
        ./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step --apdl $o --mode int2 --rot dense > /tmp/s.txt 2>&1
        ./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step --apdl $o >> /tmp/s.txt 2>&1
        echo "== round $r --apdl $o"; grep -h "^step" /tmp/s.txt | sed '1,4s/^step int2/dense int2/'
        ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --apdl $o > /tmp/w.log 2>&1
        echo "write --apdl $o: $(grep -A3 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ') H: $(grep -A3 '^diag write path, H rotations.*oscar_append_fwht, the default' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*/one \1 ms/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done | tee "$O/step.txt"
true
