#!/bin/sh
# tools/issue5/s42/dev5.sh - w49b: oscar_append_s's launches of 17-32 jobs per (KV head, K|V) (a decode step of 17-32
# sequences: one block of two MMA tiles, 2 warps each) in blocks of 16 jobs too (--wsplit 0) against one block
# (--wsplit 2): bench --step, fitted rotations, 32K tokens, batches 8 (unchanged), 24, 32 and 48 (w49), two rounds; then
# the flush edges, the wide batch and the whole GPU test.
O=${OUT:-build/s42_5}; . tools/issue5/s38/wlib.sh
for r in 1 2; do for s in 0 2; do
    timeout 120 ./build/bench_gpu --mode int2 --rot dense --step --batch 8,24,32,48 --ctx 32768 --wsplit $s > /tmp/st.txt 2>&1
    grep "^step" /tmp/st.txt | sed "s/^/r$r wsplit $s: /"
done; done | tee "$O/step.txt"
flush_edges
timeout 100 ./build/test_cuda --gpu --only "wide batch" > "$O/wide.log" 2>&1; echo "wide batch rc=$?: $(grep -c '^ok' "$O/wide.log") ok"
whole_test
