#!/bin/sh
# tools/issue5/s28/dev6.sh - run 6 of the twenty-eighth session: the clip bisection's counts on tensor cores (w30,
# -DOSCAR_FCNT_MMA=1: set.ge.bf16x2.bf16x2 ones summed by four m16n8k16 MMAs against a B of ones, no shuffles).
# The write path's GPU tests with it (every page against the CPU's, byte for byte), the quick test, then the
# write path (bench --mode write: H and fitted rotations) against the default build, two sets. (Run 6 wrote the
# logs of the FCNT_MMA sets under names the device did not return and cut the dense line: fixed here, not rerun.)
O=${OUT:-build/s28_6}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for t in flush nonfinite; do
    OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_FCNT_MMA=1" timeout 150 ./build/test_cuda --gpu --only $t > "$O/$t.log" 2>&1
    echo "$t (FCNT_MMA): rc=$? $(grep -c '^ok' "$O/$t.log") ok, $(grep -c FAIL "$O/$t.log") FAIL"; grep -m 5 "FAIL" "$O/$t.log"
done
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_FCNT_MMA=1" timeout 150 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick (FCNT_MMA): rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"
for r in 1 2; do
    for o in "" "-DOSCAR_FCNT_MMA=1"; do
        n=def; [ -n "$o" ] && n=mma
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 60 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > "$O/w_${r}_$n.log" 2>&1
        grep "^diag write path.*one append call\|pages of the two" "$O/w_${r}_$n.log" | sed "s/^/[$o] /" | sed 's/(K and V, fp32 in), //' | cut -c1-230
    done
done
true
