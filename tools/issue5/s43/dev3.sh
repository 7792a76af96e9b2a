#!/bin/sh
# tools/issue5/s43/dev3.sh - 8 x 32K INT2 on the cluster merge (v55d): 6 splits = 64 clusters of 6 blocks, of which the
# device holds 62 at once (bench --diag, run s43-2). Split counts 3-8 (two rounds; 8 x 32K, 8 x 128K; events, back to
# back, graph), then block records (-DOSCAR_WPROF=1024) at 4, 5 and 6 splits: when blocks start and end.
O=${OUT:-build/s43_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2; do for s in 0 3 4 5 6 7 8; do
    sp=""; [ $s -gt 0 ] && sp="--splits $s"
    timeout 120 ./build/bench_gpu --mode int2 --batch 8 --ctx 32768,131072 --iters 100 $sp --csv /tmp/s.csv > /dev/null 2>&1
    tail -n +2 /tmp/s.csv | awk -F, -v r=$r -v s=$s '{printf "r%s splits %s %dx%d: events %s b2b %s graph %s host %s us\n", r, s, $2, $3, $8, $10, $15, $16}'
done; done | tee "$O/splits.txt"
for s in 4 5 6; do
    rm -f /tmp/wp.csv
    OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WPROF=1024 OSCAR_WPROF_OUT=/tmp/wp.csv timeout 120 ./build/bench_gpu --mode int2 --batch 8 --ctx 32768 --iters 20 --splits $s > "$O/wprof_$s.txt" 2>&1
    grep -i "wprof\|chain\|SM" "$O/wprof_$s.txt" | head -6
    # block start / end relative to the first start (us): quantiles, and blocks starting > 3 us late
    awk -F, '{print $5, $6, $4}' /tmp/wp.csv | sort -n | awk -v s=$s 'NR==1{z=$1} {st[NR]=($1-z)/1e3; en[NR]=($2-z)/1e3; if (en[NR]>mx) mx=en[NR]; if (($1-z)/1e3>3) late++} END {n=NR; printf "splits %s: %d blocks, starts p50 %.2f p90 %.2f max %.2f us, %d start > 3 us late; last end %.2f us\n", s, n, st[int(n/2)], st[int(n*0.9)], st[n], late, mx}'
    awk -F, '{print ($6)}' /tmp/wp.csv | sort -n | awk -v s=$s '{e[NR]=$1} END {n=NR; z=e[1]; printf "splits %s: ends (us after the first end) p10 %.2f p50 %.2f p90 %.2f max %.2f\n", s, (e[int(n*0.1)]-z)/1e3, (e[int(n/2)]-z)/1e3, (e[int(n*0.9)]-z)/1e3, (e[n]-z)/1e3}'
    cp /tmp/wp.csv "$O/wp_$s.csv"
done | tee "$O/wprof.txt"
cd "$O" && tar czf recs.tgz wp_*.csv wprof_*.txt && rm -f wp_*.csv wprof_*.txt
