#!/bin/sh
# tools/issue5/s29/dev4.sh - run 4 of the twenty-ninth session, on the committed tree (w30 in oscar_append by default,
# the shared split-weight helper): compute-sanitizer memcheck (leak check), racecheck, initcheck and synccheck over
# test_cuda --gpu --quick (tools/gpu_sanitize.sh), then the issue-5 table (s25/dev10.sh) on whichever card came.
O=${OUT:-build/s29_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT="$O/san" timeout 330 sh tools/gpu_sanitize.sh --gpu --quick > "$O/san.txt" 2>&1; echo "sanitize rc=$?" >> "$O/san.txt"
rm -f "$O"/san/*.log
OUT="$O/table" timeout 240 sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
cp build/issue5_full/table.txt "$O/table/" 2>/dev/null
tar czf "$O/table.tgz" -C "$O" table && rm -rf "$O/table"
{ cat "$O/san.txt"; grep -v "^diag" "$O/table.out" | tail -32; grep "^diag write" "$O/table.out" | grep -v wht_warp | grep -o "^diag write path[^:]*\|one append call: [0-9.]* ms"; } | tee "$O/summary.txt"
true
