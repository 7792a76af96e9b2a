#!/bin/sh
# tools/ptxas_report.sh - registers and spills of the decode kernels without a GPU: compiles
# kernels/oscar_decode.cu with nvcc for sm_90a (as NVRTC does on an H100) for the main variants and prints,
# per variant and kernel, the registers and the spill bytes that ptxas reports.
# usage: sh tools/ptxas_report.sh [KERNELS_DIR]   (default kernels/; e.g. a copy from `git show` to compare)
# needs nvcc (the CUDA toolkit); a spill in oscar_decode_w's unit loop is a reason to look at a change again.
K=${1:-kernels}
command -v nvcc >/dev/null || { echo "ptxas_report: nvcc not found" >&2; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
printf "%-24s %-18s %5s %7s %7s\n" variant kernel regs spill_st spill_ld
for v in "128 4 1" "128 4 0" "128 8 1" "128 1 1" "64 3 1" "64 3 0" "256 4 1" "256 4 0"; do
    set -- $v
    d=$1 g=$2 i2=$3 tb=$(( 4096 / $1 < 64 ? 4096 / $1 : 64 ))
    nvcc -arch=sm_90a -std=c++17 -cubin -o "$T/x.cubin" -Xptxas -v -I "$K" -DOSCAR_D=$d -DOSCAR_GS=$d -DOSCAR_INT2=$i2 -DOSCAR_G=$g \
        -DOSCAR_TB=$tb -DOSCAR_TH=64 -DOSCAR_P=64 "$K/oscar_decode.cu" > "$T/log" 2>&1 || { echo "d $d G $g int2 $i2: nvcc failed"; tail -3 "$T/log"; continue; }
    awk -v tag="d$d G$g $( [ "$i2" = 1 ] && echo int2 || echo bf16 )" '
        /Compiling entry function/ { f = $0; sub(/.*function .\047?/, "", f); sub(/\047.*/, "", f) }
        /bytes spill stores/ { st = $5; ld = $9 }
        /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r); printf "%-24s %-18s %5s %7s %7s\n", tag, f, r, st, ld }' "$T/log"
done
