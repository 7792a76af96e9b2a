#!/bin/sh
# tools/issue5/s26/dev9.sh - run 9 of the twenty-sixth session (meant for an H200): the quick test on the tree with
# v55, the cluster merge against the merge launch at 8 / 12 x 32K (two sets), how many clusters the device holds
# at once (bench --diag at batch 1-8, --cmerge 1), then the issue-5 table (archived).
O=${OUT:-build/s26_9}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 8 "FAIL\|error" "$O/quick.log"
for b in 1 2 4 8; do
    timeout 60 ./build/bench_gpu --diag --mode int2 --batch $b --ctx 32768 --iters 5 --cmerge 1 2>&1 | grep "^diag oscar_decode\|^diag merge" | sed "s/^/b$b /" | cut -c1-330
done
NOQUICK=1 ROWS="int2 8,12 32768 20" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--cmerge 2" "|"
OUT="$O/table" sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
grep -v "^diag" "$O/table.out" | tail -32
grep "^diag write\|^diag per" "$O/table.out" | cut -c1-160
tar czf "$O/table.tgz" -C "$O" table table.out && rm -rf "$O/table"
true
