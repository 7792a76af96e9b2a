#!/bin/sh
# tools/issue5/s37/dev1.sh - run 1 (H100): where the write path's one-call time goes. bench --mode write (from an idle GPU, and
# the new back-to-back figure: the call queued behind another), three rounds; then, if nsys is on the machine, the kernel trace
# of one bench run: each 131,072-token call's flush kernel, the write launch after it, and the gaps.
O=${OUT:-build/s37_1}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2 3; do ./build/bench_gpu --mode write --wchunks 2048 2>&1 | grep "^copy\|diag write" | grep -v wht_warp | sed "s/^/r$r /"; done > "$O/write.txt"
cut -c1-200 "$O/write.txt"
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"
if [ -n "$NSYS" ]; then
    "$NSYS" profile -o /tmp/wtrace --force-overwrite true ./build/bench_gpu --mode write --wchunks 2048 > /tmp/nsys_run.txt 2>&1
    "$NSYS" stats --report cuda_gpu_trace --format csv -o /tmp/wt /tmp/wtrace.nsys-rep > /dev/null 2>&1
    ls /tmp/wt* > /dev/null 2>&1 && cp /tmp/wt*.csv "$O/trace.csv" 2>/dev/null
    head -3 "$O/trace.csv"
    python3 - "$O/trace.csv" > "$O/seq.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pe = None
for r in rows:
    st = float(r["Start (ns)"]) / 1e3; du = float(r["Duration (ns)"]) / 1e3
    print("%12.1f %9.1f gap %8.1f %s" % (st, du, st - pe if pe is not None else 0.0, r["Name"][:60]))
    pe = st + du
PY
    wc -l "$O/seq.txt"
    # each flush of a whole prefill (oscar_append_w): the op before it, it, and the two after
    grep -B1 -A2 "oscar_append_w" "$O/seq.txt" | head -70
fi
