#!/usr/bin/env python3
"""tools/issue5/s38/abrec.py - the block records of one or two append calls (bench --mode write with OSCAR_ABREC_OUT
and a -DOSCAR_APPEND_BREC=1 build): per kernel launch its span and blocks from the first record's start, and for the
long flush (oscar_append_w) how its blocks' lengths run by wave and how many are active near its start and end.
usage: abrec.py FILE [FILE ...]"""
import struct, sys

KNAME = {1: "oscar_append_w", 2: "oscar_append", 3: "oscar_append_s", 4: "write blocks' work done (marks)"}

def load(path):
    raw = open(path, "rb").read()
    v = struct.unpack("<%dQ" % (len(raw) // 8), raw)
    recs = []
    for b in range(len(v) // 2):
        t0, x = v[2 * b], v[2 * b + 1]
        if t0 == 0:
            continue
        recs.append((t0, t0 + (x & ((1 << 40) - 1)), (x >> 40) & 0xffff, x >> 56))
    return recs

def flush_stats(r, g00):
    g0 = min(a for a, _, _, _ in r); g1 = max(b for _, b, _, _ in r)
    n = len(r)
    sms = {}
    for a, b, s, _ in r:
        sms.setdefault(s, []).append((a, b))
    nsm = len(sms)
    byst = sorted(r)
    lens = [(b - a) / 1e3 for a, b, _, _ in byst]
    def active(t):
        tt = g0 + t * 1e3
        return sum(1 for a, b, _, _ in r if a <= tt < b)
    span = (g1 - g0) / 1e3
    slots = max(active(t) for t in (span / 4, span / 2, 3 * span / 4)) / nsm
    w = int(nsm * slots)
    mid = lens[n // 2 - w // 2:n // 2 + w // 2]
    mm = sum(mid) / len(mid)
    print("    %d blocks on %d SMs, %.2f active per SM mid-launch; block us: first wave %.2f, middle %.2f, last wave %.2f" % (
        n, nsm, slots, sum(lens[:w]) / w, mm, sum(lens[-w:]) / w))
    print("    at the middle's rate (%d slots / %.2f us) the blocks take %.1f us; the launch %.1f us: %.1f us more" % (
        w, mm, n * mm / w, span, span - n * mm / w))
    ends = sorted((b - g0) / 1e3 for _, b, _, _ in r)
    print("    first block ends at %.1f us; last block starts at %.1f us; SM last ends %.1f-%.1f us" % (
        ends[0], (byst[-1][0] - g0) / 1e3, min((max(b for _, b in v) - g0) / 1e3 for v in sms.values()), span))
    st = sorted((a - g0) / 1e3 for a, _, _, _ in r)
    print("    the i-th block starts at: " + " ".join("%d:%.1f" % (i, st[i]) for i in (1056, 2112, 5000, 10000, 20000, 30000, n - 1) if i < n))
    pts = [1, 10, 20, 30, 40, 50, span / 2, span - 30, span - 20, span - 15, span - 10, span - 5, span - 2]
    print("    active blocks at t us: " + "  ".join("%.0f:%d" % (t, active(t)) for t in pts))

if __name__ == "__main__":
    for path in sys.argv[1:]:
        r = load(path)
        if not r:
            print(path, "no records"); continue
        g00 = min(a for a, _, _, _ in r)
        print("%s: %d records" % (path, len(r)))
        for kid in sorted(set(x[3] for x in r)):
            rk = sorted(x for x in r if x[3] == kid)
            # the launches of one kernel: split where consecutive block starts are more than 50 us apart
            inst, cur = [], [rk[0]]
            for x in rk[1:]:
                if x[0] - cur[-1][0] > 50000:
                    inst.append(cur); cur = []
                cur.append(x)
            inst.append(cur)
            for i, ri in enumerate(inst):
                a = min(x[0] for x in ri); b = max(x[1] for x in ri)
                print("  %s #%d: %d blocks, %.1f to %.1f us (%.1f us)" % (KNAME.get(kid, str(kid)), i, len(ri), (a - g00) / 1e3, (b - g00) / 1e3, (b - a) / 1e3))
                if len(ri) > 4000:
                    flush_stats(ri, g00)
                else: # a small launch: when its blocks start and end
                    q = lambda v: "%.1f / %.1f / %.1f" % (v[0], v[len(v) // 2], v[-1])
                    print("    starts (first / median / last) %s us, ends %s us" % (q(sorted((x[0] - g00) / 1e3 for x in ri)), q(sorted((x[1] - g00) / 1e3 for x in ri))))
                    print("    block lengths (min / median / max) %s us" % q(sorted((x[1] - x[0]) / 1e3 for x in ri)))
