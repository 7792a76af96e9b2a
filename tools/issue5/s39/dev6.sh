#!/bin/sh
# tools/issue5/s39/dev6.sh - run 6: the test groups whose harness code the review changed (harness_rot, seqs_both):
# flush edges, nonfinite, wide batch, graph capture, in parallel.
O=${OUT:-build/s39_6}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/test_cuda >/dev/null || exit 1
for g in "flush edges" "nonfinite" "wide batch" "graph capture"; do
    f=$(echo "$g" | tr ' ' _)
    (timeout 300 ./build/test_cuda --gpu --only "$g" > "$O/$f.log" 2>&1; echo "$g rc=$? $(grep -c '^ok' "$O/$f.log") ok $(grep -c FAIL "$O/$f.log") FAIL") &
done
wait
grep -h "^FAIL" "$O"/*.log | head
