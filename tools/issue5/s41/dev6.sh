#!/bin/sh
# tools/issue5/s41/dev6.sh - w45c's cost where it now declines the late wait: one prefill of 4,096 / 8,192 / 16,384
# tokens (flushes through oscar_append, under four waves), the write launch waiting at its end (--wlate 1, w45b's rule)
# against the new rule (0: at its start for these), two rounds; one call from idle and back to back.
O=${OUT:-build/s41_6}; mkdir -p "$O"; . tools/issue5/s38/wlib.sh
for r in 1 2; do for t in 4096 8192 16384; do for wl in 0 1; do
    echo "r$r $t tokens wlate $wl: $(w --wtokens $t --wlate $wl)"
done; done; done | tee "$O/mid.txt"
