#!/bin/sh
# tools/issue5/s25/dev11.sh - run 11 of the twenty-fifth session: v52 with the rule off behind a query-rotation
# launch (fitted rotations), against the committed tree (old/): H and dense rotations, graph us / b2b us (events
# us), sets new / old / new / old.
# (as run, it had no quick test; it now shares old_quick.sh with dev8.sh)
O=${OUT:-build/s25_11}; mkdir -p "$O"
. tools/issue5/s25/old_quick.sh
for v in new old new old; do
    b=./build/bench_gpu; [ $v = old ] && b=./build/bench_old
    for rot in hadamard dense; do
        for x in 8:32768,131072:10 12:32768:10 16:32768:10; do
            IFS=: read -r bb cc it <<E
$x
E
            timeout 60 $b --batch $bb --ctx $cc --iters $it --mode int2 --rot $rot --csv "$O/x.csv" > "$O/x_$v.log" 2>&1
            awk -F, -v v=$v -v r=$rot 'NR > 1 { printf "%s %s %2s x %6s graph %6.1f b2b %6.1f (events %6.1f)\n", v, r, $2, $3, $15, $10, $8 }' "$O/x.csv"
        done
    done
done | tee "$O/ab.txt" | sort -k2,2 -k3n -k5n -s | awk '{ print }'
grep -h "^copy" "$O/x_new.log"
rm -f "$O/x.csv"
