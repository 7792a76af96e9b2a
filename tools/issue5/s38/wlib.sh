# tools/issue5/s38/wlib.sh - what the write-path device runs 4-7 share (sourced with O set): the machine's name, the
# builds, the flush-edge tests, and bench --mode write one line per call (copy, idle-GPU time and host time, back to
# back, block-record event times), two rounds of an option's two values interleaved.
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
