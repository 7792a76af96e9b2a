#!/bin/sh
# tools/issue5/s19/dev4.sh - nineteenth session, device run 4 (repository root): the dense write path's
# blocks per SM and the wgmma product again, on the codec as w26 left it (tools/gpu_wvar.sh: one
# bench per NVRTC option set, the default first and last), then the flush tests with wgmma.
O=${OUT:-build/s19d}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 sh tools/gpu_wvar.sh "" "-DOSCAR_APPEND_MINB=6" "-DOSCAR_APPEND_MINB=4" "-DOSCAR_APPEND_WGMMA=1" "" 2>&1 | tee "$O/wvar.log"
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_WGMMA=1" timeout 120 ./build/test_cuda --gpu --only flush > "$O/flush_wgmma.log" 2>&1
echo "flush with wgmma: rc=$? $(grep -c '^ok' "$O/flush_wgmma.log") ok, $(grep -c FAIL "$O/flush_wgmma.log") FAIL"; grep -m 4 FAIL "$O/flush_wgmma.log"
true
