#!/bin/sh
# Held-out Pride and Prejudice (tokens 16384.., after every calibration text) at 4K and 8K,
# bf16 + oscar-c, one job per rotation/clip variant, 4 jobs side by side with 4 threads each.
# Usage (device, after dev_build.sh a/b): sh tools/issue6/dev_heldout.sh OUTDIR NAME:ROT[:KCLIP:VCLIP] ...
M=models/SmolLM2-135M-Instruct.Q4_1.gguf
P=models/pride_and_prejudice.txt
out=$1; shift
for v in "$@"; do
    name=${v%%:*}; rest=${v#*:}; rot=${rest%%:*}; clips=""
    case "$rest" in *:*:*) kc=$(echo $rest | cut -d: -f2); vc=$(echo $rest | cut -d: -f3); clips="--k-clip $kc --v-clip $vc";; esac
    ./build/d/oscar ppl -m $M -f $P -c 8192 --start 16384 --contexts 4096,8192 --rot $rot \
        --kv bf16,oscar-c $clips -t 4 --json > $out/$name.json 2> $out/$name.err &
done
wait
for v in "$@"; do name=${v%%:*}; echo "== $name"; python3 -c "
import json,sys; d=json.load(open('$out/$name.json'))
for c in d['contexts']:
    b=[m for m in c['modes'] if m['mode']=='bf16'][0]
    for m in c['modes']:
        print(c['ctx'], m['mode'], round(m['ppl'],3), '%+.2f%%'%(100*(m['ppl']/b['ppl']-1)), m.get('kld'), m.get('top1'))
print('seconds', d['seconds'])
" 2>&1 || cat $out/$name.err; done
