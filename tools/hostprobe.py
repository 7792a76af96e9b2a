#!/usr/bin/env python3
"""tools/hostprobe.py - reads tools/hostprobe.c's records (name, start ns, end ns per driver call) and prints, for each
distinct sequence of calls between two event records (a timed call of bench_gpu), how many times it ran and the
median of each step: the host time before the call (gap after the previous one ends) and the call itself, in us.
usage: python3 tools/hostprobe.py RECORDS [MIN_COUNT]"""
import sys
from collections import defaultdict
from statistics import median

recs = [ln.split() for ln in open(sys.argv[1]) if ln.strip()]
recs = [(n, int(a), int(b)) for n, a, b in recs]
min_count = int(sys.argv[2]) if len(sys.argv) > 2 else 5
short = {"cuCtxPushCurrent_v2": "push", "cuCtxPopCurrent_v2": "pop", "cuMemcpyHtoDAsync_v2": "HtoD", "cuLaunchKernelEx": "launchEx",
         "cuLaunchKernel": "launch", "cuEventRecord": "record", "cuEventSynchronize": "evsync"}
groups = defaultdict(list)
i = 0
while i < len(recs):
    if recs[i][0] != "cuEventRecord":
        i += 1
        continue
    j = i + 1
    while j < len(recs) and recs[j][0] not in ("cuEventRecord", "cuEventSynchronize"):
        j += 1
    if j < len(recs) and recs[j][0] == "cuEventRecord" and j > i + 1:
        seg = recs[i:j + 1]
        groups[tuple(short.get(r[0], r[0]) for r in seg)].append(seg)
    i = j
for pat, segs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
    if len(segs) < min_count:
        continue
    total = median(s[-1][1] - s[0][2] for s in segs) / 1e3
    print(f"{len(segs)} calls, host from the first record's end to the second's start: median {total:.2f} us")
    for k, name in enumerate(pat):
        gap = median(s[k][1] - s[k - 1][2] for s in segs) / 1e3 if k else 0.0
        dur = median(s[k][2] - s[k][1] for s in segs) / 1e3
        print(f"  {name:9s} after {gap:7.2f} us   takes {dur:7.2f} us")
