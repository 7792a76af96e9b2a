#!/bin/sh
# tools/issue5/s41/dev4.sh - where the fitted write path's 2,048-token appends with the runs in the launch parameters
# got slower (run s41-3 on an H200: 2.672 ms against 2.438 in run s36-1; the uploaded runs level, 2.539 / 2.560): the
# bench of five earlier commits (built on the development machine, -O2, carried in build/bis) and of this tree, and
# this tree with each of the prefill's write-launch switches off, two rounds.
O=${OUT:-build/s41_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
one() { # label, binary, options: the dense one-call and chunked lines
    timeout 90 "$2" --mode write --wchunks 2048 $3 > /tmp/one.txt 2>&1
    echo "$1: $(grep 'diag write path, dense\|diag write b2b, dense' /tmp/one.txt | sed 's/.*one append call: \([0-9.]* ms\).*/one \1/; s/.*queued behind another: \([0-9.]* ms\).*/b2b \1/' | tr '\n' ' ')" \
         "chunks $(grep '2048-token' /tmp/one.txt | tail -2 | sed 's/.*appends (\(runs [a-z]*\).*): \([0-9.]* ms\).*host in the 64 calls \([0-9.]* ms\).*/\1 \2 (host \3)/' | tr '\n' ' ')"
}
for r in 1 2; do
    for c in 900f6de 7e2b072 800eab8 0e06287 bb42557 head; do one "r$r $c" build/bis/bench_$c; done
    for o in "--wlate 2" "--wsplit 2" "--wstag 2" "--apdl 2"; do one "r$r head $o" build/bis/bench_head "$o"; done
done | tee "$O/bisect.txt"
