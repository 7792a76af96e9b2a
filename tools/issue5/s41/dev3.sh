#!/bin/sh
# tools/issue5/s41/dev3.sh - the issue-5 table on the card lent (this session: an H200) with this session's tree: decode
# kernels as in run s36-2, the write path with w46 / w47 (bounded); torch SDPA in the same run.
O=${OUT:-build/s41_3}
F=/tmp/s41t T=400 N=30; . tools/issue5/table_run.sh
