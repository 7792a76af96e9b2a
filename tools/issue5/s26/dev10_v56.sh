#!/bin/sh
# tools/issue5/s26/dev10_v56.sh - prepared for the next session, not run: v56 (tools/issue5/s26/v56_clusters.patch,
# against bafeede: oscar_decode_wch, the splits of a (sequence, group) as several clusters of csize blocks, each
# merging its blocks in distributed shared memory and writing one partial per query head, the last cluster of a
# query head to finish (an acq_rel count) merging the partials from L2; `oscar_cuda_kv.cmerge` 3, `csize`; the GPU
# test runs every attention through it as a fourth pass). Apply the patch here first (`git apply ...`, then
# `make embed`); the device machine has no git. Then: the quick test, how many clusters of 2 / 4 / 8 the device
# holds at batch 1, and batch-1 graph us (events us) against the merge launch, two sets.
O=${OUT:-build/s26_10}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 250 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 8 "FAIL\|error" "$O/quick.log"
for c in 2 4 8; do
    timeout 60 ./build/bench_gpu --diag --mode int2 --batch 1 --ctx 32768 --iters 5 --cmerge 1 --splits $c 2>&1 | grep "^diag oscar_decode" | cut -c1-330
done
NOQUICK=1 ROWS="int2 1 8192,32768,131072 20
int2 2,4 32768 20" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|" "|--cmerge 3 --splits 32" "|--cmerge 3 --csize 2 --splits 32" "|--cmerge 3 --csize 8 --splits 32" "|--cmerge 3 --splits 40"
true
