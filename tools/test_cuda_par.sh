#!/bin/sh
# tools/test_cuda_par.sh - the whole `test_cuda --gpu`, its cases split over parallel processes (NVRTC compiles each
# kernel variant on the CPU, one at a time per process: on a fresh 16-core device machine the serial run takes about
# 8 minutes). Every case name of test_cuda.c is matched by one of the --only filters below ("device oom" runs alone,
# after the others: it fills the GPU's memory; "real data" runs where the model's rows are, `make real-dump`). Prints one line per group and a total; rc 1 on any FAIL or missing group.
# usage: sh tools/test_cuda_par.sh [LOGDIR [test_cuda options...]]   (build/test_cuda must exist; e.g. --arch 80)
D=${1:-/tmp/test_cuda_par}
[ $# -gt 0 ] && shift
X="$*"
mkdir -p "$D" || exit 1
set -- "grid[d64 " "grid[d128 " "grid[d256 " "long" "hsplit" "layout" "center" "gain[" "flush edges" "nonfinite" "fork" "batch8" "balance" "wide batch" "two threads" "graph capture"
# the model's own rows (`make real-dump`; REAL=path for another file) when they are there
R=${REAL:-build/real_dump.safetensors}
[ -f "$R" ] && set -- "$@" "real data"
i=0
for g in "$@"; do
    i=$((i + 1)); XR=""; [ "$g" = "real data" ] && XR="--real $R"
    (timeout 580 ./build/test_cuda --gpu $X $XR --only "$g" > "$D/$i.log" 2>&1; echo $? > "$D/$i.rc") &
done
wait
timeout 200 ./build/test_cuda --gpu $X --only "device oom" > "$D/oom.log" 2>&1; echo $? > "$D/oom.rc"
bad=0 ok=0 i=0
for g in "$@" "device oom"; do
    i=$((i + 1)); f="$D/$i"; [ "$g" = "device oom" ] && f="$D/oom"
    n=$(grep -c '^ok' "$f.log"); fl=$(grep -c '^FAIL' "$f.log"); rc=$(cat "$f.rc")
    printf '%-14s rc %s  %3d ok  %d FAIL\n' "$g" "$rc" "$n" "$fl"
    ok=$((ok + n)); [ "$rc" = 0 ] && [ "$n" -gt 0 ] && [ "$fl" = 0 ] || bad=1
    grep -m 3 '^FAIL' "$f.log"
done
echo "total: $ok ok; worst err/tol $(grep -ho 'worst err/tol [0-9.]*' "$D"/*.log | awk '{print $3}' | sort -g | tail -1)"
exit $bad
