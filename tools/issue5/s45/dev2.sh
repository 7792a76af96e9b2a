#!/bin/sh
# tools/issue5/s45/dev2.sh - the GPU kernels on the model's own rows (test_cuda --real, new): SmolLM2-135M's post-RoPE q,
# k, v of layers 0, 15, 29 over 4,160 tokens of tinyshakespeare (`make real-dump` on the development machine, carried
# as build/real_dump.safetensors): BF16, int2-hadamard, the shipped oscar rotations, the bal88 file with centering, the
# K gain and the K balance. Then a truncated dump (a clear FAIL, no crash) and the whole GPU test (which now runs the
# real-data group too), sm_90a kernels, then the real-data group with the sm_80 kernels.
O=${OUT:-build/s45_2}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/sum.txt"
make -s build/test_cuda >/dev/null || exit 1
ls -la build/real_dump.safetensors | tee -a "$O/sum.txt"
t0=$(date +%s)
timeout 300 ./build/test_cuda --gpu --only "real data" --real build/real_dump.safetensors > "$O/real.txt" 2>&1; echo "real data rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/sum.txt"
grep -E "^(ok|FAIL|SKIP|real data)" "$O/real.txt" | head -20 | tee -a "$O/sum.txt"
head -c 100000 build/real_dump.safetensors > /tmp/bad.st
timeout 60 ./build/test_cuda --gpu --only "real data" --real /tmp/bad.st > "$O/bad.txt" 2>&1; echo "truncated dump rc=$?: $(grep -E '^(FAIL|ok)' "$O/bad.txt" | head -2)" | tee -a "$O/sum.txt"
t0=$(date +%s)
timeout 400 sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/sum.txt"
tail -3 "$O/test.txt" | tee -a "$O/sum.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5 | tee -a "$O/sum.txt"
grep "real data" "$O/test.txt" | tee -a "$O/sum.txt"
t0=$(date +%s)
timeout 200 ./build/test_cuda --gpu --arch 80 --only "real data" --real build/real_dump.safetensors > "$O/real80.txt" 2>&1; echo "real data sm_80 kernels rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/sum.txt"
grep -E "^(ok|FAIL)" "$O/real80.txt" | head -8 | tee -a "$O/sum.txt"
