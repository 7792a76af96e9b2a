#!/bin/sh
# tools/issue5/s23/dev1.sh - run 1 of the twenty-third session (H100): the prepared v48 run
# (tools/issue5/s22/next_v48.sh: v48a, v48b and both, each a directory of its own, quick tests and two sets of
# A/B against the tree as it is), with the quick test of that tree added and the whole test left to the issue-5
# run that followed (run 2, on the tree that was kept).
QUICK_OLD=1 FULL=0 sh tools/issue5/s22/next_v48.sh
