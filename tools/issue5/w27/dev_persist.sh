#!/bin/sh
# tools/issue5/w27/dev_persist.sh - the persistent dense flush kernel (oscar_append_p, experiment
# w27, prepared in the eighteenth session and not yet run on a GPU) on the device: apply the patch,
# run the flush / nonfinite tests through it (--persist 1), the full test_cuda --gpu with it forced,
# then `bench_gpu --mode write` (times oscar_append_p and the tiled kernel in the same run and
# compares their pages byte for byte). Device machine, repository root, clean tree at the commit the
# patch was made against (git log: 3634f90 or a later one that does not touch the append kernel).
O=${OUT:-build/w27}; mkdir -p "$O"
{ git apply tools/issue5/w27/persist.patch 2>/dev/null || patch -p1 < tools/issue5/w27/persist.patch; } || { echo "patch does not apply"; exit 1; }
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
for t in flush nonfinite; do
    timeout 150 ./build/test_cuda --gpu --only $t --persist 1 > "$O/$t.log" 2>&1; echo "$t (persist 1): rc=$? $(grep -c '^ok' "$O/$t.log") ok, $(grep -c FAIL "$O/$t.log") FAIL"; grep -m 5 FAIL "$O/$t.log"
done
for rep in 1 2; do
    timeout 120 ./build/bench_gpu --mode write --iters 3 > "$O/write_$rep.log" 2>&1
    grep -h "^copy\|dense rotations\|pages of the two" "$O/write_$rep.log" | sed 's/131072 tokens x 8 KV heads x d 128 (K and V, fp32 in), //; s/1150.4 MB read+written, //; s/; host.*//'
done
timeout 300 ./build/test_cuda --gpu --persist 1 > "$O/full.log" 2>&1; echo "full (persist 1): rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 5 FAIL "$O/full.log"
true
