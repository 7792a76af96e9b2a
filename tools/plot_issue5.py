#!/usr/bin/env python3
"""Plot fraction of copy bandwidth against context, per batch and mode, from the CSVs that
`oscar bench --gpu --csv FILE` writes (tools/gpu_issue5.sh). usage: plot_issue5.py OUT.png CSV...
Left: events around one call from an idle GPU (pct_copy); right: the calls replayed from a CUDA graph
(pct_copy x time_us / graph_us), where the CSV has graph_us."""
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = []
for f in sys.argv[2:]:
    rows += [r for r in csv.DictReader(open(f)) if r["dim"] == "128" and r["hq"] == "32"]

def pct(r, graph):
    p = float(r["pct_copy"])
    if not graph:
        return p
    g = float(r.get("graph_us") or -1)
    return p * float(r["time_us"]) / g if g > 0 else None

fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
for ax, graph, title in ((axes[0], False, "one call from an idle GPU (events)"), (axes[1], True, "calls replayed from a CUDA graph")):
    for mode, ls in (("bf16", "--"), ("int2", "-")):
        for b in sorted({int(r["batch"]) for r in rows}):
            pts = sorted((int(r["context"]), pct(r, graph)) for r in rows if r["mode"] == mode and int(r["batch"]) == b)
            pts = [p for p in pts if p[1] is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, marker="o", label=f"{mode} batch {b}")
    ax.axhline(80, color="gray", lw=0.8); ax.text(8192, 81, "issue-5 INT2 target 80%", fontsize=8)
    ax.set_xscale("log", base=2); ax.set_xlabel("context (tokens)"); ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=10); ax.legend(fontsize=7, loc="lower right")
axes[0].set_ylabel("% of copy bandwidth")
fig.suptitle("decode attention, Hq 32 / Hkv 8 / d 128, H100")
fig.tight_layout(); fig.savefig(sys.argv[1], dpi=120)
