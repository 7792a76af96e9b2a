#!/bin/sh
# device run: the legacy MMA rates (tools/ubench_mma.cu, built here and carried) and the decode
# kernel's pipe utilisation (tools/ncu_pipes.sh) at three shapes; logs under $OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
./build/ubench_mma > "$OUT/ubench_mma.txt" 2>&1; cat "$OUT/ubench_mma.txt"
OUT=$OUT sh tools/ncu_pipes.sh 32 131072 8 32768 1 32768 2>&1 | tee "$OUT/pipes_summary.txt"
