#!/bin/sh
# tools/issue5/s24/dev9.sh - run 9 of the twenty-fourth session: regions read per block (run 8: WIL raised DRAM
# throughput at 8 x 32K, 512 regions for 2,048 before, and lowered it at 1 x 128K, 264 for 1,056). -DOSCAR_WIG=2:
# pairs of warps share a region (528 regions at 1 x 128K, 1,024 at 8 x 32K), against the default (1) and 4
# (= -DOSCAR_WIL=1), INT2, graph us (events us), two sets; quick test with WIG 2 first.
O=${OUT:-build/s24_9}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WIG=2 timeout 200 ./build/test_cuda --gpu --quick > "$O/quick_wig2.log" 2>&1
echo "quick wig2: rc=$? $(grep -c '^ok' "$O/quick_wig2.log") ok, $(grep -c FAIL "$O/quick_wig2.log") FAIL"
row() { printf "%-8s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for n in 1 2; do
    for g in 1 2 4; do
        OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WIG=$g timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode int2 --csv "$O/a.csv" > "$O/a_$g.log" 2>&1; row "wig$g" "$O/a.csv"
        OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WIG=$g timeout 60 ./build/bench_gpu --batch 8,32 --ctx 32768 --iters 15 --mode int2 --csv "$O/b.csv" > /dev/null 2>&1; row "wig$g" "$O/b.csv"
    done
done
grep -h "^copy" "$O"/a_1.log | head -1
true
