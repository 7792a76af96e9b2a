#!/bin/sh
# Needle runs on the device host's cores (after dev_build.sh a/b), detached so that they outlive one
# device call (each call lasts at most 10 minutes; the machine stays held while calls follow).
#   sh tools/issue6/dev_niah.sh start ROT       four jobs of oscar-c side by side, 4 threads each
#   sh tools/issue6/dev_niah.sh jobs ROT NAME "OPTIONS" ...   any needle runs, 4 threads each (the cache
#                                               mode: $KV, default oscar-c; threads: $THREADS, default 4;
#                                               prompt: $PREFILL, cache (default) or bf16)
#   sh tools/issue6/dev_niah.sh wait SECONDS    waits until the jobs end or SECONDS pass, prints
#                                               their progress, copies finished JSON/logs to $OUT
# The needles equal those of the bf16 runs in RESULTS.md (same seeds, lengths and depths at the
# same list positions: the needle is drawn from the seed and the positions in the lists).
M=models/SmolLM2-135M-Instruct.Q4_1.gguf
T=models/tinyshakespeare.txt
D=models/niah
case "$1" in
start)
    exec sh "$0" jobs "$2" k8a "--lengths 512,8000 --depths 10,30,50 --seed 3" k8b "--lengths 8000 --depths 70,90 --seed 3" \
        k4 "--lengths 4096 --depths 10,30,50,70,90 --seed 3" k12 "--lengths 1024,2048 --depths 10,30,50,70,90 --trials 4 --seed 2" ;;
jobs)  # jobs ROT NAME "OPTIONS" [NAME "OPTIONS" ...]: any needle runs of $KV (oscar-c), $THREADS (4) threads each
    mkdir -p $D; rot=$2; shift 2
    while [ $# -ge 2 ]; do
        setsid nohup sh -c "./build/d/oscar niah -m $M -f $T --rot $rot --kv ${KV:-oscar-c} --prefill ${PREFILL:-cache} $2 -t ${THREADS:-4} --json -v > $D/$1.json 2> $D/$1.log; echo rc \$? >> $D/$1.log" > /dev/null 2>&1 &
        shift 2
    done
    sleep 2; ls $D ;;
wait)
    end=$(( $(date +%s) + $2 ))
    while [ $(date +%s) -lt $end ] && [ $(grep -l '^rc ' $D/*.log 2>/dev/null | wc -l) -lt $(ls $D/*.log | wc -l) ]; do sleep 5; done
    for f in $D/*.log; do echo "== $f"; grep -c 'HIT\|miss' $f; grep '^rc\|HIT\|miss' $f | tail -3; done
    cp $D/* "$OUT"/ 2>/dev/null; true ;;
esac
