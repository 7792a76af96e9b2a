#!/bin/sh
# tools/issue5/s28/dev5.sh - run 5 of the twenty-eighth session: v57 as the library's rule (oscar_cuda_kv.l2pf: the
# decode's L2 prefetch of 2 units per warp from 64 (sequence, KV head) pairs). The whole GPU test (even layers
# prefetch at every batch), then graph us (events us) of the automatic rule against --l2pf 2 (never), two sets.
O=${OUT:-build/s28_5}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 400 ./build/test_cuda --gpu > "$O/test.log" 2>&1
echo "test --gpu: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL"
grep -m 8 "FAIL\|rror" "$O/test.log"
grep "^ok" "$O/test.log" | sed 's/.*worst err\/tol \([0-9.]*\).*/\1/' | sort -n | tail -1 | sed 's/^/worst err\/tol /'
NOQUICK=1 ROWS="int2 1 8192,32768,131072 20
int2 8 32768,131072 20
int2 32 32768 20" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--l2pf 2" "|"
true
