#!/bin/sh
# tools/issue5/s25/dev5.sh - run 5 of the twenty-fifth session, on the committed tree with v51b (its whole
# test_cuda --gpu ran in run 2): (1) one call's chain at batch 1 and 8 x 32K (-DOSCAR_WPROF, tools/gpu_wprof.sh,
# the decode's and the merge's block records cleared before the calls); (2) split counts at 8 x 32K with the
# interleaved decode; (3) the issue-5 table (NOTEST=1 DIAG=1 sh tools/gpu_issue5.sh full).
O=${OUT:-build/s25_5}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT="$O/wp" SHAPES="1:8192,32768,131072 8:32768" timeout 90 sh tools/gpu_wprof.sh > "$O/wprof.txt" 2>&1
cp "$O/wp/wprof.csv" "$O/" 2>/dev/null
for r in 1 2; do
    for s in 6 8 10 12 16; do
        timeout 30 ./build/bench_gpu --batch 8 --ctx 32768 --iters 20 --mode int2 --splits $s --csv "$O/sp.csv" > /dev/null 2>&1
        awk -F, -v s=$s 'NR > 1 { printf "splits %2d: 8 x 32K graph %.1f (events %.1f)\n", s, $15, $8 }' "$O/sp.csv"
    done
done > "$O/splits.txt"
F=build/issue5_full; rm -rf "$F"; mkdir -p "$F"
t0=$(date +%s)
NOTEST=1 DIAG=1 OUT="$F" timeout 400 sh tools/gpu_issue5.sh full > "$O/table.txt" 2>&1
echo "table run: $(( $(date +%s) - t0 )) s" >> "$O/table.txt"
for f in b1_new.csv b832_new.csv b64.csv b1_dense.csv b832_dense.csv sdpa.csv; do [ -f "$F/$f" ] && cp "$F/$f" "$O/"; done
cat "$O/wprof.txt" "$O/splits.txt" "$O/table.txt" > "$O/summary.txt"; rm -rf "$O/wp" "$O/sp.csv" "$O/wprof.txt" "$O/splits.txt" "$O/table.txt"
grep "chain\|^wprof\|^phases" "$O/summary.txt" | cut -c1-700
grep "^splits" "$O/summary.txt"
grep -v "chain\|^wprof\|^phases\|^splits\|^int2 \|^bf16 " "$O/summary.txt" | tail -45
