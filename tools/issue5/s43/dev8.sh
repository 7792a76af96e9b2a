#!/bin/sh
# tools/issue5/s43/dev8.sh - the BF16 cluster decode's synccheck errors (runs s43-5 to s43-7): synccheck over the
# graph-capture group with -DOSCAR_WSYNCW=1 (a __syncwarp() before each of the four flagged block barriers) against
# without, both with -lineinfo; the flagged source lines of each.
O=${OUT:-build/s43_8}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
make -s build/test_cuda >/dev/null || exit 1
for v in 0 1; do
    OSCAR_CUDA_NVRTC_OPTIONS="-lineinfo -DOSCAR_WSYNCW=$v" timeout 150 $SAN --tool synccheck --print-limit 2000 ./build/test_cuda --gpu --only "graph capture" > "$O/sync_$v.log" 2>&1
    echo "WSYNCW $v: rc=$?, $(grep -c 'Barrier error' "$O/sync_$v.log") barrier errors; $(grep -c '^ok' "$O/sync_$v.log") ok, $(grep -c FAIL "$O/sync_$v.log") FAIL"
    grep -A2 "Barrier error" "$O/sync_$v.log" | grep " at " | sed 's/.*) *+0x[0-9a-f]* in //' | sort | uniq -c | head -8
done | tee "$O/sync.txt"
cd "$O" && tar czf sync.tgz sync_*.log && rm -f sync_*.log
