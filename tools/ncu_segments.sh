#!/bin/sh
# tools/ncu_segments.sh - where one kernel launch's instructions and stalls go, by straight-line
# segment: Nsight Compute's SourceCounters (executed instructions and warp stall samples per SASS
# line) for one launch, then the runs of lines with equal executions per warp (a loop body, a
# branch arm) with their instructions per warp, share of stall samples, top opcodes and top stall
# reasons. Device machine, repository root. Used for the write path in kernels/NOTES.md (w26).
# env: KERNEL (default oscar_append), SKIP (launches skipped, default 8: in `bench_gpu --mode write`
# that passes the H-rotation calls' launches of oscar_append, so the next is the dense flush),
# ARGS (bench_gpu arguments, default "--mode write --iters 3"), MIN (segments below this many
# instructions per warp are not listed, default 8); the CSV is kept under $OUT (default build/ncu_seg).
OUT=${OUT:-build/ncu_seg}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
timeout 300 ncu --clock-control none --kernel-name "${KERNEL:-oscar_append}" --launch-skip "${SKIP:-8}" --launch-count 1 \
    --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    ./build/bench_gpu ${ARGS:---mode write --iters 3} > "$OUT/src.csv" 2> "$OUT/src.err"
echo "ncu rc=$? lines $(wc -l < "$OUT/src.csv")"
python3 - "$OUT/src.csv" "${MIN:-8}" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
hdr = [i for i, r in enumerate(rows) if r[0] == "Address"]
if not hdr:
    print("no SASS table in the CSV"); sys.exit(0)
h = rows[hdr[0]]; data = [r for r in rows[hdr[0] + 1:(hdr[1] if len(hdr) > 1 else len(rows))] if len(r) == len(h)]
def num(x):
    try: return float(x.replace(",", ""))
    except ValueError: return 0.0
iS, iSm, iE = h.index("Source"), h.index("Warp Stall Sampling (All Samples)"), h.index("Instructions Executed")
st = [j for j, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
warps = max(num(r[iE]) for r in data[:8]) or 1.0  # the kernel's first lines run once per warp
tot_e = sum(num(r[iE]) for r in data); tot_s = sum(num(r[iSm]) for r in data) or 1.0
print("%d SASS lines, %.0f warps, %.1f M warp instructions (%.0f per warp), %.0f stall samples" % (len(data), warps, tot_e / 1e6, tot_e / warps, tot_s))
segs, cur = [], None
for i, r in enumerate(data):
    c = round(num(r[iE]) / warps, 2)
    if cur is None or c != cur["x"]:
        cur = {"a": i, "x": c, "e": 0.0, "s": 0.0, "ops": {}, "st": {}}; segs.append(cur)
    cur["b"] = i; cur["e"] += num(r[iE]) / warps; cur["s"] += num(r[iSm])
    toks = r[iS].split(); op = (toks[1] if toks and toks[0].startswith("@") and len(toks) > 1 else (toks[0] if toks else "?")).split(".")[0]
    cur["ops"][op] = cur["ops"].get(op, 0) + 1
    for j in st: cur["st"][h[j][6:]] = cur["st"].get(h[j][6:], 0.0) + num(r[j])
for s in segs:
    if s["x"] == 0 or s["e"] < float(sys.argv[2]): continue
    ops = " ".join("%s:%d" % o for o in sorted(s["ops"].items(), key=lambda o: -o[1])[:5])
    ss = sum(s["st"].values()) or 1.0
    why = " ".join("%s %.0f%%" % (k, 100 * v / ss) for k, v in sorted(s["st"].items(), key=lambda o: -o[1])[:3])
    print("%5d-%5d x%6.2f %7.1f instr/warp %5.1f%% of samples | %s | %s" % (s["a"], s["b"], s["x"], s["e"], 100 * s["s"] / tot_s, ops, why))
PY
