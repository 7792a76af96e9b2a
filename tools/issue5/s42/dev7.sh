#!/bin/sh
# tools/issue5/s42/dev7.sh - w49 / w49b on the kernels an sm_80 card runs (--arch 80: PTX for compute_80, finished by the
# driver; no programmatic dependent launch, so the 16-job write blocks there never came behind a late flush before w49):
# the flush edges, the wide batch and the batch8 group, in parallel.
O=${OUT:-build/s42_7}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/test_cuda >/dev/null || exit 1
for g in "flush edges" "wide batch" "batch8"; do
    (timeout 280 ./build/test_cuda --gpu --arch 80 --only "$g" > "$O/$(echo "$g" | tr ' ' _).log" 2>&1; echo "$g (arch 80) rc=$?" >> "$O/rc.txt") &
done
wait
cat "$O/rc.txt"; for f in "$O"/*.log; do echo "$f: $(grep -c '^ok' "$f") ok, $(grep -c '^FAIL' "$f") FAIL"; grep -m 2 '^FAIL' "$f"; done
