#!/bin/sh
# tools/sass_compare.sh - is a kernel change a no-op in machine code? Compiles kernels/oscar_decode.cu and the copy in
# OLD_KDIR (e.g. `mkdir /tmp/k && git show HEAD:kernels/oscar_decode.cu > /tmp/k/oscar_decode.cu`, the same for
# kernels/oscar_common.cuh) with nvcc for ARCH (default sm_90a) in eight builds (d 64 / 128 / 256, G 1 / 3 / 4 / 8, INT2
# and BF16), disassembles both with nvdisasm (labels and encodings left out) and prints, per build, "identical" or how
# many lines differ; exits 1 if any build differs. No GPU needed.
# usage (repository root): sh tools/sass_compare.sh OLD_KDIR [ARCH]
# needs nvcc and nvdisasm (NVDISASM=path; `pip download --no-deps nvidia-cuda-nvdisasm` has one)
OLD=${1:?usage: sh tools/sass_compare.sh OLD_KDIR [ARCH]}
ARCH=${2:-sm_90a}
ND=${NVDISASM:-nvdisasm}
command -v nvcc >/dev/null || { echo "sass_compare: nvcc not found" >&2; exit 2; }
command -v "$ND" >/dev/null || { echo "sass_compare: nvdisasm not found (set NVDISASM)" >&2; exit 2; }
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
bad=0
for v in "128 4 1" "128 4 0" "128 8 1" "128 1 1" "64 3 1" "64 3 0" "256 4 1" "256 4 0"; do
    set -- $v
    d=$1 g=$2 i2=$3 tb=$(( 4096 / $1 < 64 ? 4096 / $1 : 64 ))
    for side in old new; do
        K=kernels; [ $side = old ] && K=$OLD
        nvcc -arch=$ARCH -std=c++17 -cubin -o "$T/$side.cubin" -I "$K" -DOSCAR_D=$d -DOSCAR_GS=$d -DOSCAR_INT2=$i2 -DOSCAR_G=$g \
            -DOSCAR_TB=$tb -DOSCAR_TH=64 -DOSCAR_P=64 "$K/oscar_decode.cu" 2>/dev/null || { echo "d$d G$g int2=$i2: nvcc failed ($side)"; bad=1; continue 2; }
        "$ND" -c "$T/$side.cubin" | sed -E 's/\/\*[0-9a-f]*\*\///; s/\.L_x_[0-9]+/L/g' > "$T/$side.sass"
    done
    if cmp -s "$T/old.sass" "$T/new.sass"; then echo "d$d G$g int2=$i2: identical"
    else echo "d$d G$g int2=$i2: DIFFERS ($(diff "$T/old.sass" "$T/new.sass" | grep -c '^[<>]') lines)"; bad=1; fi
done
exit $bad
