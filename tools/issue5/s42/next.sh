#!/bin/sh
# tools/issue5/s42/next.sh - for the next session (this one, like the two before, was lent H200s only). Call 1 on an H100:
# the whole GPU test, w47's stagger A/B and the decode table's quick rows (s40/next_h100.sh, ~6 min). Call 2 on an H100:
# w49 / w49b there (dev2.sh's write-path A/B and whole test, then dev5.sh's decode-step A/B). The full issue table is a
# call of its own: NOTEST=1 DIAG=1 sh tools/gpu_issue5.sh full
case "$1" in
1) sh tools/issue5/s40/next_h100.sh ;;
2) OUT=${OUT:-build/s42_next}/w sh tools/issue5/s42/dev2.sh; OUT=${OUT:-build/s42_next}/s sh tools/issue5/s42/dev5.sh ;;
*) echo "usage: sh tools/issue5/s42/next.sh 1|2"; exit 2 ;;
esac
