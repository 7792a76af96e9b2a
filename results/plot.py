#!/usr/bin/env python3
"""plot.py - draws results/quality.svg from the JSON files `oscar ppl --json` and `oscar niah --json`
wrote into results/ (standard library only: the SVG is written by hand).

    python3 results/plot.py [results/]

Left: mean KL divergence against the bf16 cache per context length (log scale). Middle: perplexity
relative to bf16. Right: needle-in-a-haystack exact-match rate per length. Every `ppl*.json` file
is read (runs at the SPEC's clips), and the runs of EXTRA (other configurations) are drawn beside
them; runs of the same mode and context (different windows) are pooled, weighted by their scored
predictions. `clips*.json` (other clips on the evaluation text)
and `heldout/*.json` (runs on the calibration book) are printed as their own tables."""
import glob
import json
import math
import os
import sys

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
COLORS = {"bf16": "#444444", "int2-naive": "#d62728", "int2-hadamard": "#ff7f0e", "oscar": "#1f77b4", "kivi2": "#2ca02c", "oscar-c": "#9467bd",
          "oscar-cr+gain": "#17becf", "oscar-cr+gain+bal": "#8c564b"}
ORDER = ["bf16", "int2-naive", "int2-hadamard", "kivi2", "oscar", "oscar-c", "oscar-cr+gain", "oscar-cr+gain+bal"]
# runs of other configurations drawn beside the SPEC-clip runs: file, mode in it, name in the plot
EXTRA = [("gain/ppl_ts.json", "oscar-cr", "oscar-cr+gain"),  # rotations/smollm2-135m-instruct-gain88.safetensors
         ("balance/ppl_ts.json", "oscar-cr", "oscar-cr+gain+bal")]  # rotations/smollm2-135m-instruct-bal88.safetensors


def pooled_ppl(files, rename=None):
    """{ctx: {mode: {"nll","kld","top1","n"}}}, bf16 included from every run (weighted); rename: {file:
    (mode, new name)}: only that mode (and bf16) of that file, under the new name"""
    out, seen = {}, set()
    for f in files:
        d = json.load(open(f))
        if rename and f in rename:
            keep, new = rename[f]
            for c in d["contexts"]:
                c["modes"] = [dict(m, mode=new) if m["mode"] == keep else m for m in c["modes"] if m["mode"] in ("bf16", keep)]
        for c in d["contexts"]:
            n = c["scored"]
            if not c.get("complete", True):  # read from a run that had not reached the context yet
                continue
            for m in c["modes"]:
                key = (m["mode"], c["ctx"], d["start"], d["windows"], d["ctx"], c["score_from"])
                if key in seen:  # bf16 runs as the reference of every run: count each window once
                    continue
                seen.add(key)
                a = out.setdefault(c["ctx"], {}).setdefault(m["mode"], {"nll": 0.0, "kld": 0.0, "top1": 0.0, "n": 0})
                a["nll"] += m["nll"] * n
                a["kld"] += m["kld"] * n
                a["top1"] += m["top1"] * n
                a["n"] += n
    for c in out.values():
        for a in c.values():
            for k in ("nll", "kld", "top1"):
                a[k] /= a["n"]
    return out


class Panel:
    def __init__(self, svg, x0, y0, w, h, title, xs, ylo, yhi, logy=False, ylabel=""):
        self.svg, self.x0, self.y0, self.w, self.h = svg, x0, y0, w, h
        self.xs, self.logy = xs, logy
        self.ylo, self.yhi = (math.log10(ylo), math.log10(yhi)) if logy else (ylo, yhi)
        svg.append('<text x="%g" y="%g" font-size="13" text-anchor="middle" font-weight="bold">%s</text>' % (x0 + w / 2, y0 - 10, title))
        svg.append('<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#888"/>' % (x0, y0, w, h))
        for i, x in enumerate(xs):
            px = self.px(i)
            svg.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#eee"/>' % (px, y0, px, y0 + h))
            svg.append('<text x="%g" y="%g" font-size="11" text-anchor="middle">%s</text>' % (px, y0 + h + 15, "%dK" % (x // 1024) if x % 1024 == 0 else str(x)))
        svg.append('<text x="%g" y="%g" font-size="11" text-anchor="middle">context (tokens)</text>' % (x0 + w / 2, y0 + h + 32))
        ticks = []
        if logy:
            e = math.floor(self.ylo)
            while e <= self.yhi + 1e-9:
                ticks.append((e, "1e%d" % e))
                e += 1
        else:
            step = (yhi - ylo) / 5.0
            ticks = [(ylo + k * step, "%.3g" % (ylo + k * step)) for k in range(6)]
        for v, lab in ticks:
            if v < self.ylo - 1e-9 or v > self.yhi + 1e-9:
                continue
            py = self.py_raw(v)
            svg.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#eee"/>' % (x0, py, x0 + w, py))
            svg.append('<text x="%g" y="%g" font-size="10" text-anchor="end">%s</text>' % (x0 - 4, py + 3, lab))
        svg.append('<text x="%g" y="%g" font-size="11" text-anchor="middle" transform="rotate(-90 %g %g)">%s</text>' %
                   (x0 - 42, y0 + h / 2, x0 - 42, y0 + h / 2, ylabel))

    def px(self, i):
        return self.x0 + 20 + i * (self.w - 40) / max(1, len(self.xs) - 1)

    def py_raw(self, v):
        return self.y0 + self.h - (v - self.ylo) / (self.yhi - self.ylo) * self.h

    def py(self, v):
        return self.py_raw(math.log10(max(v, 1e-12)) if self.logy else v)

    def line(self, pts, color, dash=False):
        path = " ".join("%g,%g" % (self.px(i), self.py(v)) for i, v in pts)
        self.svg.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>' % (path, color, ' stroke-dasharray="5,3"' if dash else ""))
        for i, v in pts:
            self.svg.append('<circle cx="%g" cy="%g" r="3" fill="%s"/>' % (self.px(i), self.py(v), color))


def vs_bf16(d):
    """(context, mode, PPL increase over bf16 in %, the bf16 entry) for every non-bf16 mode of a ppl JSON"""
    for c in d["contexts"]:
        ref = [x for x in c["modes"] if x["mode"] == "bf16"][0]
        for m in c["modes"]:
            if m["mode"] != "bf16":
                yield c, m, 100 * (math.exp(m["nll"] - ref["nll"]) - 1), ref


def main():
    extra = {os.path.join(HERE, f): (m, n) for f, m, n in EXTRA if os.path.exists(os.path.join(HERE, f))}
    ppl = pooled_ppl(sorted(glob.glob(os.path.join(HERE, "ppl*.json"))) + sorted(extra), extra)
    niah_files = sorted(glob.glob(os.path.join(HERE, "niah*.json")))
    ctxs = sorted(ppl)
    modes = [m for m in ORDER if any(m in ppl[c] for c in ctxs)]
    W, H = 1140, 380
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="15" text-anchor="middle">SmolLM2-135M-Instruct, KV cache at ~2.5 bits: quality against the bf16 cache (tinyshakespeare; rotations fitted on pride_and_prejudice)</text>' % (W // 2)]
    klds = [ppl[c][m]["kld"] for c in ctxs for m in modes if m in ppl[c] and m != "bf16"]
    if klds:
        lo = 10 ** math.floor(math.log10(min(k for k in klds if k > 0)))
        hi = 10 ** math.ceil(math.log10(max(klds)))
        p = Panel(svg, 70, 60, 300, 260, "mean KL(bf16 || mode)", ctxs, lo, hi, logy=True, ylabel="KLD (nats)")
        for m in modes:
            if m == "bf16":
                continue
            p.line([(i, ppl[c][m]["kld"]) for i, c in enumerate(ctxs) if m in ppl[c]], COLORS[m])
    def relp(c, m):
        return 100.0 * (math.exp(ppl[c][m]["nll"] - ppl[c]["bf16"]["nll"]) - 1)
    shown = [m for m in modes if m != "int2-naive"]  # naive is an order of magnitude off this scale
    rel = [relp(c, m) for c in ctxs for m in shown if m in ppl[c]]
    if rel:
        hi = max(5.0, math.ceil(max(rel) / 5.0) * 5.0)
        p = Panel(svg, 450, 60, 300, 260, "perplexity vs bf16", ctxs, min(0.0, min(rel)), hi, ylabel="PPL increase (%)")
        p.line([(i, 5.0) for i in range(len(ctxs))], "#999", dash=True)
        for m in shown:
            p.line([(i, relp(c, m)) for i, c in enumerate(ctxs) if m in ppl[c]], COLORS[m])
        naive = [relp(c, "int2-naive") for c in ctxs if "int2-naive" in ppl[c]]
        note = "dashed: +5 %" + ("; int2-naive off scale (%+.0f to %+.0f %%)" % (min(naive), max(naive)) if naive else "")
        svg.append('<text x="%g" y="%g" font-size="10" text-anchor="middle">%s</text>' % (450 + 150, 60 + 14, note))
    # the needle panel: every run at the SPEC's clips and the SPEC's sink and window (the JSON says
    # which geometry it used; runs before it did had none), hits pooled per mode and length
    pooled = {}
    for f in niah_files:
        d = json.load(open(f))
        if d.get("k_clip") or d.get("v_clip") or d.get("sink") != 64 or d.get("window") != 256:
            continue
        for m in d["modes"]:
            for L, row in zip(d["lengths"], m["hits"]):
                h, n = pooled.setdefault(m["mode"], {}).get(L, (0, 0))
                pooled[m["mode"]][L] = (h + sum(row), n + len(row) * d["trials"])
    if pooled:
        lens = sorted({L for m in pooled for L in pooled[m]})
        p = Panel(svg, 830, 60, 280, 260, "needle in a haystack (sink 64 + window 256)", lens, 0.0, 100.0, ylabel="exact match (%)")
        for mode in [m for m in ORDER if m in pooled]:
            p.line([(i, 100.0 * pooled[mode][L][0] / pooled[mode][L][1]) for i, L in enumerate(lens) if L in pooled[mode]], COLORS.get(mode, "#000"),
                   dash=mode == "bf16")
    x = 120
    for m in modes:
        svg.append('<rect x="%d" y="%d" width="14" height="4" fill="%s"/>' % (x, H - 16, COLORS[m]))
        svg.append('<text x="%d" y="%d" font-size="12">%s</text>' % (x + 18, H - 10, m))
        x += 150
    svg.append("</svg>")
    out = os.path.join(HERE, "quality.svg")
    open(out, "w").write("\n".join(svg) + "\n")
    print("wrote", out)
    # the markdown table of RESULTS.md
    bits, partial = {}, []
    for f in sorted(glob.glob(os.path.join(HERE, "ppl*.json"))):
        for c in json.load(open(f))["contexts"]:
            for m in c["modes"]:
                if c.get("complete", True):
                    bits[(c["ctx"], m["mode"])] = (m["bits"], m["history_bits"], c["scored"])
                else:
                    partial.append((c, m, [x for x in c["modes"] if x["mode"] == "bf16"][0]))
    print("| context | mode | PPL | vs bf16 | KLD | top-1 | bits/elem (cache) | bits/elem (INT2 history) | predictions |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in ctxs:
        for m in modes:
            if m not in ppl[c] or m in [e[2] for e in EXTRA]:  # the table is the SPEC-clip runs'
                continue
            a, b = ppl[c][m], bits.get((c, m), (0, 0, 0))
            print("| %d | %s | %.3f | %+.2f%% | %.5f | %.2f%% | %.2f | %s | %d |" % (
                c, m, math.exp(a["nll"]), 100 * (math.exp(a["nll"] - ppl[c]["bf16"]["nll"]) - 1), a["kld"], 100 * a["top1"],
                b[0], "%.3f" % b[1] if m != "bf16" else "16", a["n"]))

    for c, m, ref in partial:
        print("| %d, positions %d-%d only | %s | %.3f | %+.2f%% | %.5f | %.2f%% | - | %s | %d |" % (
            c["ctx"], c["score_from"], c["partial_to_position"], m["mode"], m["ppl"], 100 * (math.exp(m["nll"] - ref["nll"]) - 1), m["kld"],
            100 * m["top1"], "%.3f" % m["history_bits"] if m["mode"] != "bf16" else "16", c["scored"]))

    # the claims of RESULTS.md, checked per context (and per length for the needle)
    print()
    for om in ("oscar", "oscar-c"):
        if not any(om in ppl[c] for c in ctxs):
            continue
        print()
        print("| context | KLD: %s < int2-hadamard < int2-naive | %s PPL vs bf16 (claim: within 5%%) |" % (om, om))
        print("|---|---|---|")
        for c in ctxs:
            p = ppl[c]
            if not all(m in p for m in ("bf16", "int2-naive", "int2-hadamard", om)):
                continue
            k = [p[m]["kld"] for m in (om, "int2-hadamard", "int2-naive")]
            rel = 100 * (math.exp(p[om]["nll"] - p["bf16"]["nll"]) - 1)
            print("| %d | %s (%.4f < %.4f < %.4f) | %s (%+.2f%%) |" % (c, "holds" if k[0] < k[1] < k[2] else "does not hold", k[0], k[1], k[2],
                                                                   "holds" if abs(rel) <= 5.0 else "does not hold", rel))
    for f in niah_files:
        d = json.load(open(f))
        rate = {m["mode"]: [100.0 * sum(row) / len(row) / d["trials"] for row in m["hits"]] for m in d["modes"]}
        if "bf16" not in rate or "oscar" not in rate:
            continue
        print()
        print("%s: exact match (%%) per length; claim: oscar within 5 points of bf16" % os.path.basename(f))
        print("| mode | " + " | ".join(str(x) for x in d["lengths"]) + " | all |")
        print("|---|" + "---|" * (len(d["lengths"]) + 1))
        for m in d["modes"]:
            r = rate[m["mode"]]
            allr = 100.0 * sum(sum(row) for row in m["hits"]) / (len(m["hits"]) * len(m["hits"][0]) * d["trials"])
            print("| %s | %s | %.0f |" % (m["mode"], " | ".join("%.0f" % x for x in r), allr))

    # runs with other clips on the evaluation text (results/clips*.json), each against its own bf16
    clipf = sorted(glob.glob(os.path.join(HERE, "clips*.json")))
    if clipf:
        print()
        print("| run | clips K / V | context | mode | PPL | vs bf16 | KLD | top-1 |")
        print("|---|---|---|---|---|---|---|---|")
        for f in clipf:
            d = json.load(open(f))
            for c, m, rel, _ in vs_bf16(d):
                print("| %s | %g / %g | %d | %s | %.3f | %+.2f%% | %.5f | %.2f%% |" % (
                    os.path.basename(f), d["k_clip"], d["v_clip"], c["ctx"], m["mode"], m["ppl"], rel, m["kld"], 100 * m["top1"]))

    # the held-out runs (results/heldout/: pride_and_prejudice, never the evaluation text)
    held = sorted(glob.glob(os.path.join(HERE, "heldout", "*.json")))
    if held:
        print()
        print("| run (results/heldout/) | window | mode | rotations | clips K / V | group | BF16 sink + window | PPL | vs bf16 | KLD | top-1 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for f in held:
            d = json.load(open(f))
            kc, vc = d.get("k_clip", 0), d.get("v_clip", 0)
            clips = "SPEC (0.96 / 0.92)" if not kc and not vc else "%g / %g" % (kc, vc)
            if "k_clip" not in d:  # runs made before the JSON recorded them: the file name says
                name = os.path.basename(f)
                clips = "SPEC (0.96 / 0.92)"
                for tag in ("clip98_96", "clip92_88", "clip88_84"):
                    if tag in name:
                        clips = "0.%s / 0.%s" % (tag[4:6], tag[7:9])
            for c, m, rel, ref in vs_bf16(d):
                print("| %s | %d tokens from %d | %s | %s | %s | %s | %d + %d | %.3f (bf16 %.3f) | %+.2f%% | %.4f | %.2f%% |" % (
                    os.path.basename(f), d["ctx"], d["start"], m["mode"], d["rot"] if m["mode"] in ("oscar", "oscar-c") else "H",
                    clips, d.get("group") or 64, d.get("sink", 64), d.get("window", 256), m["ppl"], ref["ppl"], rel, m["kld"], 100 * m["top1"]))


if __name__ == "__main__":
    main()
