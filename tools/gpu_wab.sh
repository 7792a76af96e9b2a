#!/bin/sh
# tools/gpu_wab.sh - same-run A/B of the write path (device machine, repository root): the working
# tree against old/oscar_cuda.h (e.g. `git show HEAD:oscar_cuda.h > old/oscar_cuda.h`), d 128 in
# alternating runs, d 64 / 256 once each; TEST=1 (default) first runs `test_cuda --gpu --only flush`,
# FULL=1 last the whole `test_cuda --gpu`; PROF=1 also times the dense kernel's phases (OSCAR_APPEND_PROF=1: no
# MMAs, =2: no codec; timing only). Logs under $OUT; prints one line per timing.
OUT=${OUT:-build/wab}; mkdir -p "$OUT"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
if [ "${TEST:-1}" = 1 ]; then
    ./build/test_cuda --gpu --only flush > "$OUT/flush.log" 2>&1
    echo "flush: rc=$? $(grep -c '^ok' "$OUT/flush.log") ok, $(grep -c FAIL "$OUT/flush.log") FAIL"; grep -m 5 FAIL "$OUT/flush.log"
fi
old=
if [ -f old/oscar_cuda.h ]; then
    o=/tmp/oscar_wab_old; mkdir -p $o/cli && cp cli/bench_gpu.c $o/cli/ && cp oscar.h $o/ && cp old/oscar_cuda.h $o/oscar_cuda.h
    cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN $o/cli/bench_gpu.c -o build/bench_wab_old -lm -ldl -lpthread && old=./build/bench_wab_old
fi
line() { # tag, log
    grep -h "^copy" "$2" | sed 's/.* = //; s/^/    copy /' | head -1
    grep -h "diag write path, dense\|diag write path, H.*default\|appends" "$2" | sed "s/ tokens x .*one append call: / /; s/, [0-9.]* MB read+written, [0-9]* GB\/s = / = /; s/; host.*//; s/^diag write path, /[$1] /"
}
for rep in 1 2; do
    for b in ./build/bench_gpu $old; do
        t=new; [ "$b" = "$old" ] && t=old
        $b --diag --batch 1 --ctx 8192 --iters 3 > "$OUT/d128_${t}_$rep.log" 2>&1; line "d128 $t $rep" "$OUT/d128_${t}_$rep.log"
    done
done
if [ "${PROF:-0}" = 1 ]; then
    for v in 1 2; do
        OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_PROF=$v" ./build/bench_gpu --diag --batch 1 --ctx 8192 --iters 3 > "$OUT/prof$v.log" 2>&1; line "d128 new PROF=$v" "$OUT/prof$v.log" | grep dense
    done
fi
for d in 64 256; do
    for b in ./build/bench_gpu $old; do
        t=new; [ "$b" = "$old" ] && t=old
        $b --diag --batch 1 --ctx 8192 --iters 3 --dim $d --group $((d < 128 ? d : 128)) > "$OUT/d${d}_$t.log" 2>&1; line "d$d $t" "$OUT/d${d}_$t.log" | grep -v "^ *copy"
    done
done
grep -h "diag oscar_append " "$OUT/d128_new_1.log" | sed 's/ *max threads.*//; s/^/    new: /'
[ -n "$old" ] && grep -h "diag oscar_append " "$OUT/d128_old_1.log" | sed 's/ *max threads.*//; s/^/    old: /'
if [ "${FULL:-0}" = 1 ]; then
    ./build/test_cuda --gpu > "$OUT/test.log" 2>&1
    echo "test_cuda --gpu: rc=$? $(grep -c '^ok' "$OUT/test.log") ok, $(grep -c FAIL "$OUT/test.log") FAIL"; grep -m 5 FAIL "$OUT/test.log"
fi
