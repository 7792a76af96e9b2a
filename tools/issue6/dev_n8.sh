#!/bin/sh
# 8K needles for the bf16-prefill comparison (RESULTS.md), one single-thread job per (seed, mode), the
# same needles in every mode: depths 10/50/90 % of seeds 11-18 and 30/70 % of seeds 19-26.
#   sh tools/issue6/dev_n8.sh ROT MODE [MODE ...]      (then dev_niah.sh wait SECONDS)
R=$1; shift
MODES="$*"
for kv in $MODES; do
    set --
    for s in 11 12 13 14 15 16 17 18; do set -- "$@" n8s${s}_$kv "--lengths 8000 --depths 10,50,90 --seed $s"; done
    for s in 19 20 21 22 23 24 25 26; do set -- "$@" n8s${s}_$kv "--lengths 8000 --depths 30,70 --seed $s"; done
    KV=$kv PREFILL=bf16 THREADS=1 sh tools/issue6/dev_niah.sh jobs $R "$@" > /dev/null
done
