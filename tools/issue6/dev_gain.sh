#!/bin/sh
# launched on the device after dev_build.sh b: 8K single needles + 1K-4K set in 10 parts, oscar-cr with K gain
R=rotations/smollm2-135m-instruct.safetensors
G="--k-clip 0.88 --v-clip 0.88 --k-gain"
set --
for s in 11 12 13 14 15 16 17 18; do set -- "$@" g8s${s} "--lengths 8000 --depths 10 --seed $s $G"; done
for s in 19 20 21 22 23 24 25 26; do set -- "$@" g8s${s} "--lengths 8000 --depths 30 --seed $s $G"; done
for p in 0 1 2 3 4 5 6 7 8 9; do set -- "$@" g124p$p "--lengths 1024,2048,4096 --depths 10,30,50,70,90 --trials 4 --seed 2 --part $p/10 $G"; done
KV=oscar-cr PREFILL=bf16 THREADS=1 sh tools/issue6/dev_niah.sh jobs $R "$@" | wc -l
