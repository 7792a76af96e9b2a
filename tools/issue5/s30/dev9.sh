#!/bin/sh
# tools/issue5/s30/dev9.sh - run 9: the whole test_cuda --gpu on the session's final tree (default kernels unchanged)
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 480 ./build/test_cuda --gpu > /tmp/test.log 2>&1
echo "whole test_cuda --gpu: rc=$? $(grep -c '^ok' /tmp/test.log) ok, $(grep -c FAIL /tmp/test.log) FAIL, $(( $(date +%s) - t0 )) s; $(grep -o 'worst err/tol [0-9.]*' /tmp/test.log | sort -k3 -n | tail -1)"
grep -m 8 FAIL /tmp/test.log
tail -2 /tmp/test.log
