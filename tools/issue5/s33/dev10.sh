#!/bin/sh
# tools/issue5/s33/dev10.sh - run 10, the session's final tree (its whole GPU test and the sanitizers ran in run 9): the
# issue-5 table (tools/issue5/s25/dev10.sh: torch SDPA in the same run, the write-path diagnostics), then the decode
# step (bench --step) for INT2 with H and fitted rotations and BF16, batch 1 and 8 at 8K and 32K.
O=${OUT:-build/s33_10}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT="$O/csv" sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
cp build/issue5_full/table.txt "$O/csv/" 2>/dev/null
./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step > "$O/step_h.txt" 2>&1
./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step --mode int2 --rot dense > "$O/step_dense.txt" 2>&1
{ grep -v "^diag" "$O/table.out" | tail -34; grep "^diag write" "$O/table.out" | grep -v wht_warp | grep -o "^diag write path[^:]*\|one append call: [0-9.]* ms[^;]*\|appends[^;]*"; grep -h "^step" "$O/step_h.txt"; grep -h "^step" "$O/step_dense.txt" | sed 's/^step int2/dense int2/'; } | tee "$O/summary.txt"
true
