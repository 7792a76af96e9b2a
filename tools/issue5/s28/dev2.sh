#!/bin/sh
# tools/issue5/s28/dev2.sh - run 2 of the twenty-eighth session: tagged partials (v58: the decode stores each partial
# value as a {value, tag} word, the batch-1 merge polls them instead of waiting for the decode grid). The quick test
# (every first attend call tagged where the fast path applies, odd layers tagged everywhere; each second call plain
# and compared bit for bit), then graph us (events us): --ll 0 (auto) against --ll 2 (never), two sets.
O=${OUT:-build/s28_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 8 "FAIL\|rror" "$O/quick.log"
NOQUICK=1 ROWS="int2 1 8192,32768,131072 20
int2 2,4 32768 20" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--ll 2" "|" "|--ll 2 --rot dense" "|--rot dense" "|--ll 2 --mode bf16" "|--mode bf16"
true
