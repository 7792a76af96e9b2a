#!/usr/bin/env python3
"""tools/issue5/s41/abrec_chunks.py - block records of a chunked prefill (bench --mode write with OSCAR_ABREC_OUT and
OSCAR_ABREC_CHUNK=N, a -DOSCAR_APPEND_BREC=1 build: prefix.chunk): where the time of the appends goes. Per file: the
span from the first block's start to the last block's end; the time no block is active (the gaps between launches),
their count and the largest; each kernel's blocks (count, mean and median length); the mean number of active blocks.
Two files (e.g. --wlate 2 and --wlate 1) are compared line by line.
usage: abrec_chunks.py FILE [FILE ...]"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "s38"))
from abrec import KNAME, load  # the records' format (tools/issue5/s38/abrec.py)

def summary(path):
    r = [x for x in load(path) if x[3] != 4]  # marks are points in time, not blocks
    if not r:
        return None
    g0 = min(a for a, _, _, _ in r)
    g1 = max(b for _, b, _, _ in r)
    ev = sorted([(a, 1) for a, _, _, _ in r] + [(b, -1) for _, b, _, _ in r])
    active, last, idle, gaps, big, busy = 0, g0, 0, 0, 0, 0
    for t, d in ev:
        if active == 0 and t > last:
            idle += t - last
            gaps += 1
            big = max(big, t - last)
        busy += active * (t - last)
        active += d
        last = t
    out = {"span us": (g1 - g0) / 1e3, "blocks": len(r), "idle us (no block active)": idle / 1e3, "idle gaps": gaps,
           "largest gap us": big / 1e3, "mean active blocks": busy / max(g1 - g0, 1)}
    for kid in sorted(set(x[3] for x in r)):
        ls = sorted((b - a) / 1e3 for a, b, _, k in r if k == kid)
        name = KNAME.get(kid, "kernel %d" % kid)
        out[name + " blocks"] = len(ls)
        out[name + " mean / median us"] = "%.2f / %.2f" % (sum(ls) / len(ls), ls[len(ls) // 2])
    return out

rows = [(p, summary(p)) for p in sys.argv[1:]]
keys = []
for _, s in rows:
    for k in (s or {}):
        if k not in keys:
            keys.append(k)
print("%-36s" % "" + "".join("%24s" % p[-24:] for p, _ in rows))
for k in keys:
    cells = []
    for _, s in rows:
        v = (s or {}).get(k, "-")
        cells.append("%24s" % ("%.1f" % v if isinstance(v, float) else str(v)))
    print("%-36s" % k + "".join(cells))
