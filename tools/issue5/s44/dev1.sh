#!/bin/sh
# tools/issue5/s44/dev1.sh - is the BF16 cluster decode's synccheck report (run s43-5 to s43-8) about the kernel or
# about non-portable cluster sizes? (1) build/csync_repro (tools/issue5/s44/csync_repro.cu, nvcc -arch=sm_90,
# carried): the decode's barrier pattern alone (top-level __syncthreads, cluster arrive / wait, distributed
# shared-memory reads) in clusters of 8, 13 and 16 blocks, with and without PDL, 128 and 256 threads, plain and under
# synccheck. (2) synccheck over the graph-capture group with cdiag.patch applied: default; the clusters capped at 8
# with every decode through them (OSCAR_DIAG_CMAX=8, OSCAR_DIAG_CMERGE=1); no clusters (OSCAR_DIAG_CMERGE=2).
O=${OUT:-build/s44_1}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/sum.txt"
$SAN --version | tail -1 | tee -a "$O/sum.txt"
for S in 8 13 16; do for T in 128 256; do for P in 0 1; do
    ./build/csync_repro $S 2 40 $T $P > "$O/r.log" 2>&1; a=$(tail -1 "$O/r.log")
    timeout 60 $SAN --tool synccheck --print-limit 5 ./build/csync_repro $S 2 40 $T $P > "$O/rs_${S}_${T}_$P.log" 2>&1
    echo "repro S $S T $T pdl $P: plain [$a]; synccheck rc=$? $(grep -c 'Barrier error' "$O/rs_${S}_${T}_$P.log") printed, $(grep 'ERROR SUMMARY' "$O/rs_${S}_${T}_$P.log")"
done; done; done | tee -a "$O/sum.txt"
make -s build/test_cuda >/dev/null || exit 1
for v in "def" "c8" "nocl"; do
    case $v in def) E="";; c8) E="OSCAR_DIAG_CMAX=8 OSCAR_DIAG_CMERGE=1";; nocl) E="OSCAR_DIAG_CMERGE=2";; esac
    env $E timeout 200 $SAN --tool synccheck --print-limit 200 ./build/test_cuda --gpu --only "graph capture" > "$O/gc_$v.log" 2>&1
    echo "graph capture $v [$E]: rc=$?, $(grep -c 'Barrier error' "$O/gc_$v.log") printed, $(grep 'ERROR SUMMARY' "$O/gc_$v.log"); $(grep -c '^ok' "$O/gc_$v.log") ok, $(grep -c FAIL "$O/gc_$v.log") FAIL"
    grep -A3 "Barrier error" "$O/gc_$v.log" | grep -o 'at .* in [a-z_A-Z0-9<>, ]*' | sort | uniq -c | head -4
    grep -B1 -A3 "Barrier error" "$O/gc_$v.log" | grep -o 'block (.*' | head -3
done | tee -a "$O/sum.txt"
cd "$O" && tar czf logs.tgz *.log && rm -f *.log
