#!/bin/sh
# tools/issue5/s39/dev2.sh - run 2: the new graph-capture test (and under compute-sanitizer memcheck); the host's time
# per driver call of the write path and of a batch-1 attend (tools/hostprobe.c in place of libcuda).
O=${OUT:-build/s39_2}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 200 ./build/test_cuda --gpu --only "graph capture" > "$O/graph.txt" 2>&1; echo "graph capture rc=$?"; cat "$O/graph.txt"
command -v compute-sanitizer >/dev/null && { timeout 300 compute-sanitizer --tool memcheck ./build/test_cuda --gpu --only "graph capture" > "$O/graph_memcheck.txt" 2>&1; echo "memcheck rc=$?"; tail -3 "$O/graph_memcheck.txt"; }
cc -O2 -shared -fPIC -o build/hostprobe.so tools/hostprobe.c -ldl -Wl,--no-as-needed -l:libcuda.so.1 || exit 1
(export OSCAR_LIBCUDA=$PWD/build/hostprobe.so HOSTPROBE_OUT=/tmp/hp_write.txt; timeout 60 ./build/bench_gpu --mode write > "$O/write.txt" 2>&1); grep "diag write" "$O/write.txt" | cut -c1-60,300-
python3 tools/hostprobe.py /tmp/hp_write.txt 5 | tee "$O/hp_write.txt"
(export OSCAR_LIBCUDA=$PWD/build/hostprobe.so HOSTPROBE_OUT=/tmp/hp_b1.txt; timeout 60 ./build/bench_gpu --batch 1 --ctx 8192 --iters 50 > "$O/b1.txt" 2>&1); grep "int2" "$O/b1.txt" | head -3
python3 tools/hostprobe.py /tmp/hp_b1.txt 20 | tee "$O/hp_b1.txt"
