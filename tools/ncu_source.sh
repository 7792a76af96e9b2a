#!/bin/sh
# tools/ncu_source.sh - where the warps of one oscar_decode_w launch wait: Nsight Compute's warp
# stall samples per SASS instruction (SourceCounters): the 30 instructions with the most samples,
# and the share of each 100-instruction region. usage (device machine, repository root): sh tools/ncu_source.sh [batch ctx] (default 1 8192)
# env: KERNEL (default oscar_decode_w), SKIP (launches skipped, default 4), ARGS (bench_gpu arguments
# instead of the decode run, e.g. KERNEL=oscar_append SKIP=1 ARGS="--diag --batch 1 --ctx 8192 --iters 1")
OUT=${OUT:-build/ncu_source}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
b=${1:-1}; c=${2:-8192}
timeout 300 ncu --clock-control none --kernel-name "${KERNEL:-oscar_decode_w}" --launch-skip "${SKIP:-4}" --launch-count 1 \
    --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    ./build/bench_gpu ${ARGS:---batch "$b" --ctx "$c" --iters 3 --mode "${MODE:-int2}"} > "$OUT/src_${b}_$c.csv" 2>"$OUT/src_${b}_$c.err"
echo "ncu rc=$? lines $(wc -l < "$OUT/src_${b}_$c.csv")"
python3 - "$OUT/src_${b}_$c.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
hdr = None
for i, r in enumerate(rows):
    if any("Source" == x or "Address" in x for x in r) and any("Sampl" in x for x in r):
        hdr = i; break
if hdr is None:
    print("no header; first lines:"); [print(",".join(r)[:200]) for r in rows[:8]]; sys.exit(0)
h = rows[hdr]; data = rows[hdr + 1:]
print("columns:", [x for x in h][:12])
si = [j for j, x in enumerate(h) if "Warp Stall Sampling (All" in x]
si = si[0] if si else [j for j, x in enumerate(h) if "Sampl" in x][0]
src = [j for j, x in enumerate(h) if x == "Source"][0]
def num(x):
    try: return float(x.replace(",", ""))
    except: return 0.0
tot = sum(num(r[si]) for r in data if len(r) > si)
print("total samples", tot, "instructions", len(data))
idx = sorted(range(len(data)), key=lambda k: -num(data[k][si]) if len(data[k]) > si else 0)[:30]
for k in sorted(idx):
    r = data[k]
    print("%5d %6.1f%%  %s" % (k, 100 * num(r[si]) / max(tot, 1), r[src][:90]))
# cumulative share by region of 100 instructions
reg = {}
for k, r in enumerate(data):
    if len(r) > si: reg[k // 100] = reg.get(k // 100, 0) + num(r[si])
print("by 100-instruction region:", " ".join("%d:%.0f%%" % (g, 100 * v / max(tot, 1)) for g, v in sorted(reg.items()) if v > 0.01 * tot))
PY
