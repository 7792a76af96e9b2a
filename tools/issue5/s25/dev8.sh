#!/bin/sh
# tools/issue5/s25/dev8.sh - run 8 of the twenty-fifth session: v52a, split counts for the interleaved decode by
# the busiest SM's work (oscar__kv_splits_il), against the committed tree (old/ from `git show HEAD:`): quick test,
# then graph us (events us) per batch, sets new / old / new / old. Run 9 (dev9.sh) is this with other shapes
# and the whole test after. env: SHAPES "batch:ctx:iters ...", MODE (int2), EXTRA (bench options), TEST=1 the whole test_cuda --gpu at
# the end, NOQUICK=1 no quick test.
O=${OUT:-build/s25_8}; mkdir -p "$O"
. tools/issue5/s25/old_quick.sh
for v in new old new old; do
    b=./build/bench_gpu; [ $v = old ] && b=./build/bench_old
    for x in ${SHAPES:-8:32768:20 9:32768:20 10:32768:20 12:32768:20 16:32768:20 20:32768:10 24:32768:10 32:32768:10 40:32768:10 48:32768:10 64:32768:10 8:131072:10 16:131072:10}; do
        IFS=: read -r bb cc it <<E
$x
E
        timeout 60 $b --batch $bb --ctx $cc --iters $it --mode ${MODE:-int2} ${EXTRA:-} --csv "$O/x.csv" > "$O/x_$v.log" 2>&1
        awk -F, -v v=$v 'NR > 1 { printf "%s %2s x %6s graph %6.1f (events %6.1f)\n", v, $2, $3, $15, $8 }' "$O/x.csv"
    done
done | tee "$O/ab.txt" | awk '{ k = $2 " x " $4; g[k, $1] = g[k, $1] " " $6; e[k, $1] = e[k, $1] " " $8; if (!(k in seen)) { seen[k] = 1; ord[n++] = k } }
    END { for (i = 0; i < n; i++) { k = ord[i]; printf "%-10s new%s | old%s\n", k, g[k, "new"], g[k, "old"] } }'
grep -h "^copy" "$O/x_new.log"
rm -f "$O/x.csv"
if [ "$TEST" = 1 ]; then
    timeout 400 ./build/test_cuda --gpu > "$O/test.log" 2>&1
    echo "whole test_cuda --gpu: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL; $(tail -1 "$O/test.log")"
    grep -o "worst err/tol [0-9.]*" "$O/test.log" | sort -k3 -n | tail -1
fi
true
