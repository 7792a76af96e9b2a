#!/bin/sh
# tools/issue5/s27/dev3.sh - run 3 of the twenty-seventh session: the packed-BF16 codec (oscar_append_fwht and
# the dense flush tiles) now built for sm_80 too. The whole GPU test with the sm_80 kernels (PTX for
# compute_80, finished by the driver), the quick test with the device's own, then the write path with both.
O=${OUT:-build/s27_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 330 ./build/test_cuda --gpu --arch 80 > "$O/test80.log" 2>&1
echo "test --gpu --arch 80: rc=$? $(grep -c '^ok' "$O/test80.log") ok, $(grep -c FAIL "$O/test80.log") FAIL"
grep -m 12 "FAIL\|rror\|^device:\|GPU checks" "$O/test80.log"
grep "^ok" "$O/test80.log" | sed 's/.*worst err\/tol \([0-9.]*\).*/\1/' | sort -n | tail -1 | sed 's/^/worst err\/tol /'
timeout 120 ./build/test_cuda --gpu --quick > "$O/quick90.log" 2>&1
echo "test --gpu --quick (sm_90a CUBIN): rc=$? $(grep -c '^ok' "$O/quick90.log") ok, $(grep -c FAIL "$O/quick90.log") FAIL"
for r in 1 2; do
    for a in 90 80; do
        x=""; [ $a = 80 ] && x="--arch 80"
        # shellcheck disable=SC2086
        timeout 60 ./build/bench_gpu $x --mode write --batch 1 --ctx 8192 --iters 5 > "$O/write_${a}_$r.log" 2>&1
        grep "^diag write path.*one append call\|pages of the two" "$O/write_${a}_$r.log" | sed "s/^/sm_$a kernels: /" | cut -c1-190
    done
done
true
