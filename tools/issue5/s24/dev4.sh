#!/bin/sh
# tools/issue5/s24/dev4.sh - run 4 of the twenty-fourth session: the issue-5 table (DIAG=1 sh tools/gpu_issue5.sh
# full: the whole test_cuda --gpu, every row, torch SDPA, per-launch times, the write path) on the tree with v51
# for BF16 caches; the same steps as tools/issue5/s23/dev2.sh, which it runs.
exec sh tools/issue5/s23/dev2.sh
