#!/bin/sh
# tools/issue5/s33/dev9.sh - run 9, the session's final kernels: compute-sanitizer memcheck, racecheck, initcheck and
# synccheck over test_cuda --gpu --quick (its flush edges run oscar_append_s for every launch in one pass, the append
# kernels under programmatic dependent launch), then the whole GPU test over parallel processes.
O=${OUT:-build/s33_9}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT="$O/san" timeout 360 sh tools/gpu_sanitize.sh --gpu --quick > "$O/san.txt" 2>&1; echo "sanitize rc=$?" >> "$O/san.txt"
grep -h "flush edges.*dense" "$O"/san/memcheck.log | head -20 >> "$O/san.txt"; rm -f "$O"/san/*.log
cat "$O/san.txt"
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$O/test.txt"
true
