#!/bin/sh
# tools/issue5/s40/next_h100.sh - for the next session lent an H100 (this one was lent H200s only): run s40-3's script
# there (the whole GPU test, w47's A/B: no stagger, the default 1.5 us, and 2.0 / 2.5 us by NVRTC option, three rounds;
# the decode table's quick rows). The full issue table is a call of its own: NOTEST=1 DIAG=1 sh tools/gpu_issue5.sh full
NS="2000 2500" OUT=${OUT:-build/next_h100} sh tools/issue5/s40/dev3.sh
