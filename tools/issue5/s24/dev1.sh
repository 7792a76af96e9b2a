#!/bin/sh
# tools/issue5/s24/dev1.sh - run 1 of the twenty-fourth session: v49 (oscar_decode_w's INT2 unit with fewer
# instructions) against the committed kernels (old/ from `git show HEAD:`), same run, two sets per row.
#   new:   -DOSCAR_WSCF=3 -DOSCAR_WDIG=1 (the defaults now): a warp's unit scales to fp32 once (K and V),
#          adjacent query digits per lane joined in int32. Static count of the d 128 G 4 unit region
#          744 -> 637 instructions (nvcc 13 sm_90a), 52 bytes spilled (loop invariants of the staging)
#   wscf1: K scales only (698 instructions, no spill)
#   wdig0: both scale kinds, digits as before (655, 16 bytes spilled)
# Quick test of each option set, then graph us (events us) per shape. Run 1 ran with the kernel changes of
# tools/issue5/s24/v49_scales_digits.patch applied (not kept; the output is run1/table.txt).
O=${OUT:-build/s24_1}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
for v in new wscf1 wdig0; do
    case $v in new) opt= ;; wscf1) opt=-DOSCAR_WSCF=1 ;; wdig0) opt=-DOSCAR_WDIG=0 ;; esac
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 200 ./build/test_cuda --gpu --quick > "$O/quick_$v.log" 2>&1
    echo "quick $v: rc=$? $(grep -c '^ok' "$O/quick_$v.log") ok, $(grep -c FAIL "$O/quick_$v.log") FAIL"; grep -m 3 FAIL "$O/quick_$v.log"
done
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for n in 1 2; do
    for v in old new wscf1 wdig0; do
        b=./build/bench_gpu; opt=
        case $v in old) b=./build/bench_old ;; wscf1) opt=-DOSCAR_WSCF=1 ;; wdig0) opt=-DOSCAR_WDIG=0 ;; esac
        OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 60 $b --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/h.csv" > "$O/h_$v.log" 2>&1; row "$n $v" "$O/h.csv"
        OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 90 $b --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 --csv "$O/e.csv" > /dev/null 2>&1; row "$n $v" "$O/e.csv"
    done
done
grep -h "^copy" "$O"/h_old.log | head -1
true
