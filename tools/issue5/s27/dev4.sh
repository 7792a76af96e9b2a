#!/bin/sh
# tools/issue5/s27/dev4.sh - run 4 of the twenty-seventh session: compute-sanitizer (memcheck, racecheck,
# initcheck, synccheck) over `test_cuda --gpu --quick --arch 80`: the sm_80 kernels, with the packed-BF16
# write codec now built for them, never ran under the sanitizer.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
OUT=${OUT:-build/s27_4} sh tools/gpu_sanitize.sh --gpu --quick --arch 80
true
