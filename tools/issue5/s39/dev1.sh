#!/bin/sh
# tools/issue5/s39/dev1.sh - run 1: the final tree of the thirty-eighth session (w45b, the oscar__pdl_ok refactor, the
# flush-edge epoch check) through the whole GPU test; two rounds of the write path with the write launch's wait at its
# end / start; the quick issue-5 decode table (no tests).
O=${OUT:-build/s39_1}; . tools/issue5/s38/wlib.sh
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; cat "$O/test.txt"
ab --wlate 0 2
(export OUT=/tmp/gi5 NOTEST=1; sh tools/gpu_issue5.sh quick > "$O/table.txt" 2>&1); tail -20 "$O/table.txt"
