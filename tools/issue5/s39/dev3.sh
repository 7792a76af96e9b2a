#!/bin/sh
# tools/issue5/s39/dev3.sh - run 3: run 2's host probe again (the shim now keeps libcuda as a dependency: --no-as-needed)
O=${OUT:-build/s39_3}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
cc -O2 -shared -fPIC -o build/hostprobe.so tools/hostprobe.c -ldl -Wl,--no-as-needed -l:libcuda.so.1 || exit 1
(export OSCAR_LIBCUDA=$PWD/build/hostprobe.so HOSTPROBE_OUT=/tmp/hp_write.txt; timeout 60 ./build/bench_gpu --mode write > "$O/write.txt" 2>&1); grep "diag write" "$O/write.txt" | cut -c1-60,300-
python3 tools/hostprobe.py /tmp/hp_write.txt 5 | tee "$O/hp_write.txt"
(export OSCAR_LIBCUDA=$PWD/build/hostprobe.so HOSTPROBE_OUT=/tmp/hp_b1.txt; timeout 60 ./build/bench_gpu --batch 1 --ctx 8192 --iters 50 > "$O/b1.txt" 2>&1); grep "int2" "$O/b1.txt" | head -3
python3 tools/hostprobe.py /tmp/hp_b1.txt 20 | tee "$O/hp_b1.txt"
timeout 60 ./build/bench_gpu --mode write 2>&1 | grep "diag write" | cut -c1-60,300-
