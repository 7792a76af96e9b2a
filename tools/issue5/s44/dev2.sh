#!/bin/sh
# tools/issue5/s44/dev2.sh - oscar_cuda_kv.cluster_max: the whole GPU test (the attention checks now cap the clusters
# at 8 on half their cluster calls), then compute-sanitizer synccheck with `test_cuda --cluster-max 8` over the groups
# that launch clusters (graph capture, batch8, wide batch, the quick suite), and the graph-capture group without it.
O=${OUT:-build/s44_2}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/sum.txt"
make -s build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 400 sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/test.txt"
tail -2 "$O/test.txt" | tee -a "$O/sum.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5 | tee -a "$O/sum.txt"
for g in "graph capture" "batch8" "wide batch" "QUICK" "graph capture/default"; do
    case $g in QUICK) A="--quick --cluster-max 8";; "graph capture/default") A="--only graph";; *) A="--cluster-max 8";; esac
    L="$O/sc_$(echo "$g" | tr -c 'a-zA-Z0-9\n' _).log"; t0=$(date +%s)
    if [ "$g" = QUICK ] || [ "$g" = "graph capture/default" ]; then timeout 200 $SAN --tool synccheck --print-limit 20 ./build/test_cuda --gpu $A > "$L" 2>&1
    else timeout 200 $SAN --tool synccheck --print-limit 20 ./build/test_cuda --gpu $A --only "$g" > "$L" 2>&1; fi
    echo "synccheck $g [$A]: rc=$?, $(grep 'ERROR SUMMARY' "$L" | head -1) | $(grep -c '^ok' "$L") ok, $(grep -c '^FAIL' "$L") FAIL, $(( $(date +%s) - t0 )) s"
done | tee -a "$O/sum.txt"
cd "$O" && tar czf logs.tgz *.log && rm -f *.log
