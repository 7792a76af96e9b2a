#!/bin/sh
# tools/gpu_write.sh - the issue-5 write-path run on the device machine (repository root): build, the
# whole `test_cuda --gpu`, then `bench_gpu --diag` write path (131,072-token prefill, 8 KV heads,
# d 128, K and V) for the default kernel and for NVRTC option sets given as arguments (each with
# `test_cuda --gpu --quick` unless it names OSCAR_APPEND_PROF, a timing-only switch). usage: sh tools/gpu_write.sh ["-DOPT=1" ...]   (logs under $OUT)
# env: QUICK=1 runs the default kernel's tests with --quick
OUT=${OUT:-build/gpu_write}; mkdir -p "$OUT"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/device.txt"
t0=$(date +%s)
./build/test_cuda --gpu ${QUICK:+--quick} > "$OUT/test.log" 2>&1
echo "test-cuda --gpu ${QUICK:+--quick} rc=$? ($(($(date +%s) - t0)) s): $(grep -c '^ok' "$OUT/test.log") ok, $(grep -c FAIL "$OUT/test.log") FAIL; $(tail -2 "$OUT/test.log" | tr '\n' ' ')"
grep -m 5 FAIL "$OUT/test.log"
write() { # tag
    ./build/bench_gpu --diag --batch 1 --ctx 8192 --iters 5 > "$OUT/write_$1.log" 2>&1
    grep -h "^copy\|diag oscar_append\|diag oscar_decode \|diag oscar_decode_w\|diag write" "$OUT/write_$1.log" | sed "s/^/[$1] /"
}
write default
for v in "$@"; do
    t=$(echo "$v" | tr -c 'A-Za-z0-9\n' '_')
    export OSCAR_CUDA_NVRTC_OPTIONS="$v"
    case "$v" in *PROF*) ;; *) # OSCAR_APPEND_PROF variants are for timing only (wrong codes)
        ./build/test_cuda --gpu --quick > "$OUT/test_$t.log" 2>&1
        echo "[$t] test-cuda --quick rc=$?: $(grep -c FAIL "$OUT/test_$t.log") FAIL" ;;
    esac
    write "$t"
    unset OSCAR_CUDA_NVRTC_OPTIONS
done
