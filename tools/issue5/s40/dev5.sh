#!/bin/sh
# tools/issue5/s40/dev5.sh - for the next session (this one had no device time left for it): w47's sleep loop bounded
# in number (tools/issue5/s40/w47_bound.patch: a timer that does not advance cannot hold a block), applied here, then
# the flush edges (their first pass staggers every oscar_append_w launch) and one round of bench --mode write, no
# stagger (--wstag 2) / the default. If it passes and times level, commit the patch.
patch -p1 < tools/issue5/s40/w47_bound.patch && make -s embed || exit 1
O=${OUT:-build/s40_5}; . tools/issue5/s38/wlib.sh
(OSCAR_CUDA_NVRTC_OPTIONS= flush_edges)
echo "wstag 2: $(w --wstag 2)" | tee "$O/write.txt"
echo "default: $(w)" | tee -a "$O/write.txt"
