# tools/issue5/s38/wlib.sh - what the write-path device runs 4-7 share (sourced with O set): the machine's name, the
# builds, the flush-edge tests, and bench --mode write one line per call (copy, idle-GPU time and host time, back to
# back, block-record event times), two rounds of an option's two values interleaved; the whole GPU test (since s42).
# (Runs 4-7 ran these lines inline in each script; they were moved here afterwards and not run again on a GPU.)
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
flush_edges() { # the flush-edge tests into $O/flush.log; returns their exit status
    timeout 120 ./build/test_cuda --gpu --only "flush edges" > "$O/flush.log" 2>&1; frc=$?
    echo "flush edges rc=$frc: $(grep -c '^ok' "$O/flush.log") ok, $(grep -c FAIL "$O/flush.log") FAIL"
    grep FAIL "$O/flush.log" | head -5
    return $frc
}
w() { # bench --mode write with these options, one line
    timeout 60 ./build/bench_gpu --mode write --wchunks 2048 "$@" 2>&1 | grep "^copy\|diag write path, dense\|diag write b2b, dense\|^abrec" |
        sed 's/.*copy bandwidth: 1 GiB device-to-device in/copy/; s/.*one append call: \([^)]*)\).*of copy; host side[^0-9]*\([0-9.]*\) ms/idle \1 host \2 ms/; s/.*one append call queued behind another:/b2b/' | tr '\n' ' '
    echo
}
ab() { # ab --opt A B: two rounds of w --opt A, w --opt B, into $O/write.txt
    for r in 1 2; do
        echo "r$r ${1#--} $2: $(w "$1" "$2")"
        echo "r$r ${1#--} $3: $(w "$1" "$3")"
    done | tee "$O/write.txt"
}
whole_test() { # the whole GPU test (tools/test_cuda_par.sh) into $O/test.txt, its time and total; returns its status
    t0=$(date +%s)
    timeout 200 sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; trc=$?
    echo "test_cuda_par rc=$trc in $(( $(date +%s) - t0 )) s" | tee -a "$O/test.txt"
    tail -3 "$O/test.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5
    return $trc
}
sanitize() { # compute-sanitizer's four tools over test_cuda --gpu --only "$1" (memcheck with the leak check) into $O/san.txt
    SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
    for tool in memcheck racecheck synccheck initcheck; do
        extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"; [ $tool = memcheck ] && extra="--leak-check full"
        cm=""; [ $tool = synccheck ] && cm="--cluster-max 8" # synccheck misreports clusters of > 8 blocks (s44, run 1)
        t0=$(date +%s); L="$O/san_${tool}_$(echo "$1" | tr -c 'a-z0-9\n' _).log"
        timeout 150 $SAN --tool $tool $extra --error-exitcode 9 ./build/test_cuda --gpu $cm --only "$1" > "$L" 2>&1; rc=$?
        echo "$1, $tool: rc $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$L" | tail -1) | $(grep -c '^ok' "$L") ok, $(grep -c FAIL "$L") FAIL, $(( $(date +%s) - t0 )) s" | tee -a "$O/san.txt"
    done
}
