#!/bin/sh
# tools/issue5/s24/dev3.sh - run 3 of the twenty-fourth session: v51, a block's units taken in turn by its warps
# (-DOSCAR_WIL=1: warp w walks units ua + w, ua + w + 4, ... of its block's range; one region per block in
# flight instead of four) against the default build (SASS of oscar_decode_w as committed). Question: do
# fewer concurrent streams (264 instead of 1,056 at 1 x 128K; 512 instead of 2,048 at 8 x 32K) let DRAM
# deliver more (run s23-5: 16 warps per SM drew less from DRAM than 8)? INT2 d 128 G 4 spills 52 bytes with
# the option (the staging's loop invariants, as v35); BF16 (98 registers) does not, so BF16 is the clean test.
O=${OUT:-build/s24_3}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WIL=1 timeout 200 ./build/test_cuda --gpu --quick > "$O/quick_wil.log" 2>&1
echo "quick wil: rc=$? $(grep -c '^ok' "$O/quick_wil.log") ok, $(grep -c FAIL "$O/quick_wil.log") FAIL"; grep -m 5 "FAIL\|error" "$O/quick_wil.log"
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for v in def wil def wil; do
    opt=; [ $v = wil ] && opt=-DOSCAR_WIL=1
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --csv "$O/f.csv" > "$O/f_$v.log" 2>&1; row "$v bf16" "$O/f.csv"
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 90 ./build/bench_gpu --batch 8 --ctx 32768 --iters 15 --mode bf16 --csv "$O/g.csv" > /dev/null 2>&1; row "$v bf16" "$O/g.csv"
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/h.csv" > "$O/h_$v.log" 2>&1; row "$v int2" "$O/h.csv"
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 90 ./build/bench_gpu --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 --csv "$O/e.csv" > /dev/null 2>&1; row "$v int2" "$O/e.csv"
done
grep -h "^copy" "$O"/h_def.log | head -1
true
