#!/bin/sh
# bench_model.sh OSCAR MODEL TEXT [LENGTHS] - prompt and generation speed of `oscar run` with the
# bf16 and oscar caches at several context lengths (default 512 2048 8192 tokens).
# The prompt of a run of length N is the first N-64 tokens of TEXT; 64 tokens are then generated
# (greedy, past end-of-turn), so the context ends at N. The oscar rotations are fitted first on
# 9,000 bytes from another part of TEXT (byte 400,000 on), with `oscar run --dump-calib` and
# `oscar fit`. Threads: all online CPUs. Prints one line per run and a Markdown table.
set -eu
OSCAR=$1
MODEL=$2
TEXT=$3
LENGTHS=${4:-512 2048 8192}
DIR=${BENCH_DIR:-build/bench-model}
mkdir -p "$DIR"
if [ ! -f "$MODEL" ]; then echo "SKIP: $MODEL is absent (make model)"; exit 0; fi
if [ ! -f "$TEXT" ]; then echo "SKIP: benchmark text $TEXT is absent"; exit 0; fi

ntok() { "$OSCAR" tokenize -m "$MODEL" -f "$1" | wc -w; }

# the longest prefix of TEXT with at most $1 tokens
prefix() {
    lo=1; hi=$(( $1 * 8 + 64 ))
    while [ $((hi - lo)) -gt 1 ]; do
        mid=$(( (lo + hi) / 2 ))
        head -c $mid "$TEXT" > "$DIR/cut.txt"
        if [ "$(ntok "$DIR/cut.txt")" -le "$1" ]; then lo=$mid; else hi=$mid; fi
    done
    head -c $lo "$TEXT" > "$2"
}

ROT=$DIR/smollm2.rot.safetensors
if [ ! -f "$ROT" ]; then
    head -c 409000 "$TEXT" | tail -c 9000 > "$DIR/calib.txt"
    "$OSCAR" run -m "$MODEL" -f "$DIR/calib.txt" -n 0 --plain f32 --dump-calib "$DIR/calib.safetensors" >/dev/null 2>"$DIR/calib.log"
    "$OSCAR" fit --qkv "$DIR/calib.safetensors" -o "$ROT" --model "$(basename "$MODEL")" >/dev/null 2>>"$DIR/calib.log"
    rm -f "$DIR/calib.safetensors"
fi

echo "| context | cache | prompt tokens | prompt tok/s | generation tok/s | KV MiB | all-BF16 MiB |" > "$DIR/table.md"
echo "|---:|---|---:|---:|---:|---:|---:|" >> "$DIR/table.md"
for N in $LENGTHS; do
    P=$((N - 64))
    [ -f "$DIR/prompt$P.txt" ] || prefix $P "$DIR/prompt$P.txt"
    for kv in bf16 oscar; do
        extra=""
        [ $kv = oscar ] && extra="--rot $ROT"
        # shellcheck disable=SC2086
        "$OSCAR" run -m "$MODEL" -f "$DIR/prompt$P.txt" -n 64 --ignore-eos -c $N --kv $kv $extra 2>"$DIR/run.log" >/dev/null
        pt=$(grep '^prompt:' "$DIR/run.log" | sed 's/.*(\([0-9.]*\) tok\/s.*/\1/')
        np=$(grep '^prompt:' "$DIR/run.log" | awk '{print $2}')
        gt=$(grep '^generation:' "$DIR/run.log" | sed 's/.*(\([0-9.]*\) tok\/s.*/\1/')
        tot=$(grep '^  total' "$DIR/run.log" | awk '{print $2}')
        b16=$(grep '^  all-BF16' "$DIR/run.log" | awk '{print $3}')
        echo "context $N, $kv: prompt $np tokens at $pt tok/s, generation at $gt tok/s, KV $tot MiB (BF16 $b16 MiB), load $(cut -d' ' -f1 /proc/loadavg)"
        echo "| $N | $kv | $np | $pt | $gt | $tot | $b16 |" >> "$DIR/table.md"
    done
done
cat "$DIR/table.md"
