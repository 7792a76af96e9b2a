#!/usr/bin/env python3
"""tools/issue5/s42/placement.py - where a chunked prefill's launches put their blocks (block records of bench --mode write
with OSCAR_ABREC_CHUNK=N, a -DOSCAR_APPEND_BREC=1 build). Blocks are grouped into bursts (starts within 3 us of the
burst's first); for bursts of FLUSH blocks (a flush launch placed at once) the count of blocks per SM, the mean block
length by that count, and the SMs of the WRITE-block bursts (a write launch of whole tiles) beside them.
usage: placement.py [--flush 512] [--write 64] FILE [FILE ...]"""
import collections, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "s38"))
from abrec import load  # the records' format (tools/issue5/s38/abrec.py)

def main(argv):
    nf, nw, files = 512, 64, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--flush", "--write"):
            if argv[i] == "--flush": nf = int(argv[i + 1])
            else: nw = int(argv[i + 1])
            i += 2
        else:
            files.append(argv[i]); i += 1
    for p in files:
        r = sorted(x for x in load(p) if x[3] != 4)
        bursts, cur = [], [r[0]]
        for x in r[1:]:
            if x[0] - cur[0][0] < 3000: cur.append(x)
            else: bursts.append(cur); cur = [x]
        bursts.append(cur)
        fl = [b for b in bursts if len(b) == nf]
        wr = [b for b in bursts if len(b) == nw]
        print("%s: %d bursts, %d of %d blocks, %d of %d, others (first 10) %s" % (p, len(bursts), len(fl), nf, len(wr), nw,
              [len(b) for b in bursts if len(b) not in (nf, nw)][:10]))
        hist, lenby = collections.Counter(), collections.defaultdict(list)
        for b in fl[2:]:
            c = collections.Counter(s for _, _, s, _ in b)
            hist.update(collections.Counter(c.values()))
            for a, e, s, _ in b: lenby[c[s]].append((e - a) / 1e3)
        print("  %d-block bursts, blocks per SM: (count, SM-launches) %s" % (nf, sorted(hist.items())))
        print("  mean block us by the SM's count: %s" % {k: round(sum(v) / len(v), 2) for k, v in sorted(lenby.items())})
        wh = collections.Counter()
        for b in wr[2:]:
            wh.update(collections.Counter(collections.Counter(s for _, _, s, _ in b).values()))
        print("  %d-block bursts, blocks per SM: (count, SM-launches) %s" % (nw, sorted(wh.items())))

if __name__ == "__main__":
    main(sys.argv[1:])
