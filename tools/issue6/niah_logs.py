#!/usr/bin/env python3
# tools/issue6/niah_logs.py - hits per prompt length and cache mode from `oscar niah -v` logs (one line per
# needle and mode; runs cut short still log every needle they finished), and for each pair of modes the
# needles both ran: hits of each and the needles only one of them found.
# Logs of `--score` runs also give, per pair of modes and length, the mean digits -log p over the needles both scored.
# usage: niah_logs.py [--as TAG] LOG [LOG ...] [--as TAG LOG ...]
#   --as TAG: the INT2 modes of the logs after it are named MODE/TAG (e.g. one rotation file per tag)
import re, sys, itertools, collections
pat = re.compile(r"len\s+(\d+) \(\s*\d+ tokens\) depth\s+(\d+)% \(token\s+(\d+)\)\s+(\S+)\s+(HIT|miss)\s+'(.*)' \(needle (\d+)\)")
res = collections.defaultdict(dict)  # (length, needle, token) -> mode -> hit
nll = collections.defaultdict(dict)  # the same -> mode -> digits -log p (runs with --score)
args, tag = sys.argv[1:], ''
while args:
    f = args.pop(0)
    if f == '--as':
        tag = '/' + args.pop(0)
        continue
    for line in open(f, errors='replace'):
        m = pat.search(line)
        if m:
            L, dep, tok, mode, hit, ans, val = m.groups()
            mo = mode if mode == 'bf16' else mode + tag
            res[(int(L), val, int(tok))][mo] = hit == 'HIT'
            if ans.startswith('digits -log p '):
                nll[(int(L), val, int(tok))][mo] = float(ans.split()[-1])
modes = sorted({mo for v in res.values() for mo in v})
lengths = sorted({k[0] for k in res})
print('length  ' + '  '.join(f'{mo:>14}' for mo in modes))
for L in lengths:
    row = []
    for mo in modes:
        r = [v[mo] for k, v in res.items() if k[0] == L and mo in v]
        row.append(f'{sum(r):>6} of {len(r):<5}' if r else f'{"-":>14}')
    print(f'{L:>6}  ' + '  '.join(row))
for a, b in itertools.combinations(modes, 2):
    for L in lengths:
        both = [v for k, v in res.items() if k[0] == L and a in v and b in v]
        if not both: continue
        print(f'{L:>6} {a} vs {b}, {len(both)} needles run by both: {sum(v[a] for v in both)} vs {sum(v[b] for v in both)};'
              f' only {a}: {sum(v[a] and not v[b] for v in both)}, only {b}: {sum(v[b] and not v[a] for v in both)}')
for a, b in itertools.combinations(sorted({mo for v in nll.values() for mo in v}), 2):
    for L in lengths:
        both = [v for k, v in nll.items() if k[0] == L and a in v and b in v]
        if both:
            print(f'{L:>6} --score, {len(both)} needles scored by both: mean digits -log p {a} {sum(v[a] for v in both) / len(both):.3f},'
                  f' {b} {sum(v[b] for v in both) / len(both):.3f}; {b} higher on {sum(v[b] > v[a] for v in both)}')
