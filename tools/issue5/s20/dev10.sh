#!/bin/sh
# tools/issue5/s20/dev10.sh - twentieth session, device run 10 (repository root): where a batch-1 decode
# grid's blocks go and when they start (-DOSCAR_WPROF=1024), 1 x 32K INT2 at 33 and 41 splits with the
# query rotation and 33 without; per run: blocks per SM, start / end spread, the chain of the three kernels.
O=${OUT:-build/s20j}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for c in "33 hadamard" "33 none" "41 hadamard" "25 hadamard"; do
    set -- $c; f="$O/wp_s$1_$2.csv"; rm -f "$f"
    OSCAR_WPROF_OUT="$f" OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768 --iters 20 --mode int2 --splits $1 --rot $2 > "$O/wp_s$1_$2.log" 2>&1
    echo "== splits $1 rot $2: $(grep '^int2' "$O/wp_s$1_$2.log" | awk '{print "graph " $8}')"
    grep -h "chain" "$O/wp_s$1_$2.log" | sed 's/;/;\n   /g' | head -4
    awk -F, '{ sm[$4]++; s[NR] = $5; e[NR] = $6; if (NR == 1 || $5 < s0) s0 = $5; if (NR == 1 || $6 < e0) e0 = $6; if ($6 > e1) e1 = $6 }
        END { for (k in sm) h[sm[k]]++; printf "   blocks %d on %d SMs; SMs by blocks held:", NR, length(sm); for (k in h) printf " %d:%d", k, h[k];
              n1 = 0; for (i = 1; i <= NR; i++) { d = (s[i] - s0) / 1e3; if (d > 1.0) n1++; if (d > mx) mx = d }
              printf "\n   starts: last %.2f us after the first, %d blocks start > 1 us late; ends %.2f .. %.2f us after the first start\n", mx, n1, (e0 - s0) / 1e3, (e1 - s0) / 1e3 }' "$f"
    awk -F, 'NR == FNR { sm[$4]++; if (FNR == 1 || $5 < s0) s0 = $5; next }
        { d = ($5 - s0) / 1e3; if (d > 1.0) { late[sm[$4]]++; lsm[$4] = 1 } ; b = int(d); hist[b > 9 ? 9 : b]++ }
        END { printf "   late blocks by the block count of their SM:"; for (k in late) printf " %d:%d", k, late[k];
              printf " (%d SMs); start times in 1-us bins:", length(lsm); for (i = 0; i <= 9; i++) printf " %d", hist[i]; printf "\n" }' "$f" "$f"
done
true
