#!/usr/bin/env python3
"""tools/issue5_mdtable.py - the issue-5 table of BENCHMARKS.md from one run's CSVs (tools/gpu_issue5.sh output:
b1_new.csv, b832_new.csv, b64.csv, sdpa.csv, b1_dense.csv, b832_dense.csv). usage: issue5_mdtable.py CSV_DIR"""
import csv, os, sys

d = sys.argv[1]
rows = {}
for f in ("b1_new.csv", "b832_new.csv", "b64.csv"):
    for r in csv.DictReader(open(os.path.join(d, f))):
        rows[(r["mode"], int(r["batch"]), int(r["context"]))] = r
sdpa = {}
for line in open(os.path.join(d, "sdpa.csv")):
    p = line.strip().split(",")
    if len(p) == 4 and p[0] == "sdpa":
        sdpa[(int(p[1]), int(p[2]))] = float(p[3])

def pct(r, t):  # % of copy for time t (us): the bench's own figure for its events time, else from the row's bytes
    if t == r["time_us"]:
        return float(r["pct_copy"])
    return 100.0 * float(r["kv_mb"]) * 1e6 / (float(t) * 1e-6) / (float(r["copy_gbs"]) * 1e9)

print("| batch x context | BF16 us (% bw) | BF16 graph us (% bw) | INT2 us (% bw) | INT2 graph us (% bw) | torch SDPA us | SDPA / INT2 (graph) |")
print("|---|---|---|---|---|---|---|")
for b, n in ((1, 8192), (1, 32768), (1, 131072), (8, 32768), (8, 131072), (32, 32768), (32, 131072), (64, 32768)):
    bf, i2 = rows.get(("bf16", b, n)), rows.get(("int2", b, n))
    if not i2:
        continue
    cell = lambda r, k: "%.1f (%.1f%%)" % (float(r[k]), pct(r, r[k])) if r else "-"
    s = sdpa.get((b, n))
    ratio = "%.2fx (%.2fx)" % (s / float(i2["time_us"]), s / float(i2["graph_us"])) if s else "-"
    print("| %d x %dK | %s | %s | %s | %s | %s | %s |" % (b, n // 1024, cell(bf, "time_us"), cell(bf, "graph_us"), cell(i2, "time_us"),
                                                     cell(i2, "graph_us"), "%.1f" % s if s else "-", ratio))
dense = []
for f in ("b1_dense.csv", "b832_dense.csv"):
    p = os.path.join(d, f)
    if os.path.exists(p):
        for r in csv.DictReader(open(p)):
            dense.append("%s x %dK %.1f (%.1f%%) / %.1f (%.1f%%)" % (r["batch"], int(r["context"]) // 1024, float(r["time_us"]), pct(r, r["time_us"]),
                                                                 float(r["graph_us"]), pct(r, r["graph_us"])))
if dense:
    print("\nFitted (dense) rotations, INT2 events us (% bw) / graph us (% bw): " + "; ".join(dense) + ".")
