#!/bin/sh
# tools/issue5/s38/dev2.sh - run 2: where one long flush launch (oscar_append_w, fitted rotations, 131,072 tokens) loses
# against its steady rate, from an idle GPU and queued behind another call: block records (-DOSCAR_APPEND_BREC=1,
# bench --mode write with OSCAR_ABREC_OUT, tools/issue5/s38/abrec.py); timings of the default build, with and without PDL.
# Run 2 took the records with the first form of the option (each block at its own index, flush only); the committed form
# (records by an atomic counter, every tiled append kernel) is what dev3.sh reads.
O=${OUT:-build/s38_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu >/dev/null || exit 1
w() { ./build/bench_gpu --mode write --wchunks 2048 "$@" 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense" |
      sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/'; }
for r in 1 2; do
  echo "== round $r default"; w
  echo "== round $r BREC"; (export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=$O/rec$r; w)
done > "$O/write.txt"
cat "$O/write.txt"
python3 tools/issue5/s38/abrec.py $O/rec1.idle $O/rec1.b2b $O/rec2.idle $O/rec2.b2b | tee "$O/abrec.txt"
rm -f $O/rec2.*
