#!/bin/sh
# tools/issue5/s45/dev3.sh - the real-data group (test_cuda --real, run s45-2) under compute-sanitizer: memcheck (with
# the leak check), racecheck, initcheck, synccheck (clusters capped at 8, as tools/gpu_sanitize.sh runs it).
O=${OUT:-build/s45_3}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/sum.txt"
make -s build/test_cuda >/dev/null || exit 1
for tool in memcheck racecheck initcheck synccheck; do
    extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"; [ $tool = memcheck ] && extra="--leak-check full"
    cm=""; [ $tool = synccheck ] && cm="--cluster-max 8"
    t0=$(date +%s); L="$O/san_$tool.log"
    timeout 130 $SAN --tool $tool $extra --error-exitcode 9 ./build/test_cuda --gpu $cm --only "real data" --real build/real_dump.safetensors > "$L" 2>&1; rc=$?
    echo "real data, $tool: rc $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$L" | tail -1) | $(grep -c '^ok' "$L") ok, $(grep -c FAIL "$L") FAIL, $(( $(date +%s) - t0 )) s" | tee -a "$O/sum.txt"
done
cd "$O" && tar czf logs.tgz san_*.log && rm -f san_*.log
