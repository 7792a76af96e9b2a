#!/bin/sh
# tools/gpu_issue5.sh - the issue-5 device run: build, GPU tests, decode-attention table, torch SDPA.
# usage (on the device machine, repository root): sh tools/gpu_issue5.sh [quick]   (logs under $OUT)
OUT=${OUT:-build/gpu_issue5}; mkdir -p "$OUT"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/device.txt"
if [ "$1" = quick ]; then ./build/test_cuda --gpu --quick > "$OUT/test.log" 2>&1; else ./build/test_cuda --gpu > "$OUT/test.log" 2>&1; fi
echo "test-cuda rc=$? : $(tail -2 "$OUT/test.log" | tr '\n' ' ')"
./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --csv "$OUT/b1.csv" > "$OUT/b1.log" 2>&1; tail -12 "$OUT/b1.log"
./build/bench_gpu --batch 8,32 --ctx 32768,131072 --iters 20 --csv "$OUT/b832.csv" > "$OUT/b832.log" 2>&1; tail -12 "$OUT/b832.log"
if [ "$1" != quick ]; then
  ./build/bench_gpu --batch 64 --ctx 32768 --iters 10 --csv "$OUT/b64.csv" > "$OUT/b64.log" 2>&1; tail -4 "$OUT/b64.log"
  ./build/bench_gpu --batch 1,8 --ctx 32768 --hq 24 --hkv 8 --dim 64 --group 64 --iters 20 --csv "$OUT/d64.csv" > "$OUT/d64.log" 2>&1; tail -5 "$OUT/d64.log"
  ./build/bench_gpu --batch 1,8 --ctx 32768 --hq 64 --hkv 8 --iters 20 --csv "$OUT/g8.csv" > "$OUT/g8.log" 2>&1; tail -5 "$OUT/g8.log"
  ./build/bench_gpu --batch 1,8 --ctx 32768 --dim 256 --iters 20 --csv "$OUT/d256.csv" > "$OUT/d256.log" 2>&1; tail -5 "$OUT/d256.log"
  command -v python3 >/dev/null && timeout 150 python3 tools/sdpa_bench.py > "$OUT/sdpa.csv" 2>&1; grep -v "^#" "$OUT/sdpa.csv"
fi
