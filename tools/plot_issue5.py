#!/usr/bin/env python3
"""Plot fraction of copy bandwidth against context, per batch and mode, from the CSVs that
`oscar bench --gpu --csv FILE` writes (tools/gpu_issue5.sh). usage: plot_issue5.py OUT.png CSV..."""
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = []
for f in sys.argv[2:]:
    rows += [r for r in csv.DictReader(open(f)) if r["dim"] == "128" and r["hq"] == "32"]
fig, ax = plt.subplots(figsize=(7, 4.5))
for mode, ls in (("bf16", "--"), ("int2", "-")):
    for b in sorted({int(r["batch"]) for r in rows}):
        pts = sorted((int(r["context"]), float(r["pct_copy"])) for r in rows if r["mode"] == mode and int(r["batch"]) == b)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, marker="o", label=f"{mode} batch {b}")
ax.axhline(80, color="gray", lw=0.8); ax.text(8192, 81, "issue-5 INT2 target 80%", fontsize=8)
ax.set_xscale("log", base=2); ax.set_xlabel("context (tokens)"); ax.set_ylabel("% of copy bandwidth")
ax.set_ylim(0, 100); ax.legend(fontsize=8, loc="lower right"); ax.set_title("decode attention, Hq 32 / Hkv 8 / d 128, H100")
fig.tight_layout(); fig.savefig(sys.argv[1], dpi=120)
