#!/bin/sh
# tools/issue5/s38/dev6.sh - run 6: w45, a prefill's sink / window launch waiting for its flush launch at its end
# (append_wlate 0, the default) against at its start (--wlate 2): the whole GPU test (tools/test_cuda_par.sh; the flush
# edges run both), then two interleaved rounds of bench --mode write.
# Needs tools/issue5/s38/w45_wlate.patch applied (git apply, make embed).
O=${OUT:-build/s38_6}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; tail -3 "$O/test.txt"; grep FAIL "$O/test.txt" | head -5
ab --wlate 0 2
