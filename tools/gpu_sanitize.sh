#!/bin/sh
# tools/gpu_sanitize.sh - compute-sanitizer memcheck (with leak check), racecheck, initcheck and
# synccheck over the GPU tests (`test_cuda --gpu --quick`: every kernel kind, INT2 and BF16, d 64,
# 128 and 256, forks, the NaN row, two contexts on two threads). Prints one line per tool,
# "clean" or "NOT CLEAN", and exits 1 if any tool found something. Needs a GPU and compute-sanitizer.
# synccheck runs with `--cluster-max 8` (oscar_cuda_kv.cluster_max: the decode's clusters of at most 8 blocks).
# usage (repository root): sh tools/gpu_sanitize.sh [test_cuda options...]   (logs under $OUT)
OUT=${OUT:-build/gpu_sanitize}; mkdir -p "$OUT"
SAN=${CUDA_SANITIZER:-compute-sanitizer}
command -v "$SAN" >/dev/null 2>&1 || { [ -x /usr/local/cuda/bin/compute-sanitizer ] && SAN=/usr/local/cuda/bin/compute-sanitizer; }
command -v "$SAN" >/dev/null 2>&1 || { echo "SKIP: $SAN not found"; exit 0; }
make -s build/test_cuda >/dev/null || exit 1
args=${*:---gpu --quick}
bad=0
for tool in memcheck racecheck initcheck synccheck; do
    extra="" cm=""
    case $tool in
        memcheck) extra="--leak-check full" ;;
        racecheck) extra="--racecheck-report all" ;;
        synccheck) cm="--cluster-max 8" ;; # synccheck (2025.3) reports barrier errors in correct kernels launched in
                                           # clusters of more than 8 blocks (tools/issue5/s44/csync_repro.cu)
    esac
    t0=$(date +%s)
    # shellcheck disable=SC2086
    $SAN --tool $tool $extra --error-exitcode 9 ./build/test_cuda $args $cm > "$OUT/$tool.log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$OUT/$tool.log" | tail -2 | tr '\n' ' ')
    tests=$(grep -E "^test_cuda:" "$OUT/$tool.log" | tail -1)
    if [ $rc -eq 0 ] && grep -q "test_cuda: all passed" "$OUT/$tool.log"; then
        echo "$tool: clean (rc 0; $summary; $tests; $(( $(date +%s) - t0 )) s)"
    else
        echo "$tool: NOT CLEAN (rc $rc; $summary; $tests; log $OUT/$tool.log)"
        grep -m 8 -E "^========= (Invalid|Race|Uninitialized|Barrier|Program hit|Error|  )" "$OUT/$tool.log"
        bad=1
    fi
done
exit $bad
