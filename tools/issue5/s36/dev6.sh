#!/bin/sh
# tools/issue5/s36/dev6.sh - run 6 (H100; needs tools/issue5/s36/v65_tail.patch applied): v65's tail size. The tree of run 5 with the tail off (--dyn 2) and with the
# warps' own ranges covering 15, 12 and 8 sixteenths of the work (OSCAR_DYNF, an NVRTC option; --dyn 1), two rounds
# interleaved at 1 x 128K and 4 x 128K. Columns: events / back to back / graph us.
O=${OUT:-build/s36_6}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2; do
    for v in off f15 f12 f8; do
        X="--dyn 1"; NO=""
        case $v in off) X="--dyn 2" ;; f15) NO="-DOSCAR_DYNF=15" ;; f12) NO="-DOSCAR_DYNF=12" ;; f8) NO="-DOSCAR_DYNF=8" ;; esac
        OSCAR_CUDA_NVRTC_OPTIONS="$NO" ./build/bench_gpu --iters 50 --mode int2 $X --batch 1,4 --ctx 131072 2>&1 | grep -h "^int2\|rror" | sed "s/^/r$r $v /"
    done
done > "$O/ab.txt"
awk '$3 == "int2" { k = $4 "x" $5; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $7, $9, $10); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-9s off%s | f15%s | f12%s | f8%s\n", ks[i], t[ks[i], "off"], t[ks[i], "f15"], t[ks[i], "f12"], t[ks[i], "f8"] }' "$O/ab.txt"
grep -i "rror" "$O/ab.txt" | head -3
