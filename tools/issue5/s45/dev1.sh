#!/bin/sh
# tools/issue5/s45/dev1.sh - the issue-5 table on the card lent (this session: an H200) with this session's tree (the
# decode kernels with v66, the write path with w46 / w47 / w49; oscar_cuda_kv.cluster_max), torch SDPA in the same run;
# then the whole GPU test and three rounds of the fitted write path (one 131,072-token append, from idle / back to back).
O=${OUT:-build/s45_1}
F=/tmp/s45t T=400 N=30; . tools/issue5/table_run.sh
. tools/issue5/s38/wlib.sh
whole_test
for r in 1 2 3; do echo "r$r: $(w)"; done | tee "$O/write.txt"
