#!/bin/sh
# tools/issue5/s32/dev3.sh - run 3, this session's tree on whichever card comes (asked for an H200): compute-sanitizer
# memcheck, racecheck, initcheck and synccheck over test_cuda --gpu --quick (its flush edges now send aligned and
# misaligned rows through oscar_append_w), the hoisted loop against OSCAR_APPEND_HOIST=0 (optab.sh), then the issue-5 table.
O=${OUT:-build/s32_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT="$O/san" timeout 330 sh tools/gpu_sanitize.sh --gpu --quick > "$O/san.txt" 2>&1; echo "sanitize rc=$?" >> "$O/san.txt"
grep -h "flush edges" "$O"/san/memcheck.log | head -20 >> "$O/san.txt"; rm -f "$O"/san/*.log
sh tools/issue5/s31/optab.sh -DOSCAR_APPEND_HOIST=0 > "$O/hoist.txt" 2>&1
OUT="$O/table" timeout 240 sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
cp build/issue5_full/table.txt "$O/table/" 2>/dev/null
tar czf "$O/table.tgz" -C "$O" table && rm -rf "$O/table"
{ cat "$O/san.txt" "$O/hoist.txt"; grep -v "^diag" "$O/table.out" | tail -32; grep "^diag write" "$O/table.out" | grep -v wht_warp | grep -o "^diag write path[^:]*\|one append call: [0-9.]* ms[^;]*"; } | tee "$O/summary.txt"
true
