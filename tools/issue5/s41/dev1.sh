#!/bin/sh
# tools/issue5/s41/dev1.sh - the fortieth session's two prepared checks in one call (H200): dev5.sh (w47's sleep loop
# bounded: the patch, the flush edges, one write-path round without / with the stagger) and dev6.sh (one oscar_append_w
# block alone on its SM: 384 and 1,024-token prefills, block records).
export OUT=${OUT:-build/s41_1}
sh tools/issue5/s40/dev5.sh; echo "dev5 rc=$?"
sh tools/issue5/s40/dev6.sh; echo "dev6 rc=$?"
cd "$OUT" && tar czf logs.tgz *.txt *.log 2>/dev/null; ls
