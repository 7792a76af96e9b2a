#!/bin/sh
# tools/issue5/s39/dev4.sh - run 4: the append's page loop in locals (oscar_cuda.h) against the committed header
# (tools/issue5/s39/old/oscar_cuda.h, not committed): bench --mode write, four rounds interleaved (one line per call:
# copy, from an idle GPU with host time, back to back), and the host probe of the new one.
O=${OUT:-build/s39_4}; . tools/issue5/s38/wlib.sh
o=/tmp/oscar_old; mkdir -p $o/cli && cp cli/bench_gpu.c $o/cli/ && cp oscar.h $o/ && cp tools/issue5/s39/old/oscar_cuda.h $o/oscar_cuda.h
cc -std=c99 -O3 -march=native -DOSCAR_BENCH_GPU_MAIN $o/cli/bench_gpu.c -o build/bench_old -lm -ldl -lpthread || exit 1
wb() { # binary: one line of the dense write path
    timeout 60 $1 --mode write --wchunks 2048 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense" |
        sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/' | tr '\n' ' '
    echo
}
for r in 1 2 3 4; do echo "r$r new: $(wb ./build/bench_gpu)"; echo "r$r old: $(wb ./build/bench_old)"; done | tee "$O/write.txt"
cc -O2 -shared -fPIC -o build/hostprobe.so tools/hostprobe.c -ldl -Wl,--no-as-needed -l:libcuda.so.1 || exit 1
for b in bench_gpu bench_old; do
    (export OSCAR_LIBCUDA=$PWD/build/hostprobe.so HOSTPROBE_OUT=/tmp/hp_$b.txt; timeout 60 ./build/$b --mode write --wchunks 2048 > /dev/null 2>&1)
    echo "$b:"; python3 tools/hostprobe.py /tmp/hp_$b.txt 5
done | tee "$O/hp.txt"
