make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
./build/test_cuda --gpu --quick > $OUT/test.log 2>&1; echo "quick test rc=$? $(grep -c '^ok' $OUT/test.log) ok $(grep -c FAIL $OUT/test.log) FAIL"
for shape in "32 32768 5" "1 131072 20"; do set -- $shape
timeout 200 ncu --clock-control none --kernel-name oscar_decode_w --launch-skip $3 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SourceCounters \
  ./build/bench_gpu --batch $1 --ctx $2 --iters 3 > $OUT/ncu_$1_$2.txt 2>&1
echo "== batch $1 ctx $2 rc=$?"
grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Registers Per|Block Limit|Stall|stall" $OUT/ncu_$1_$2.txt | head -60
done
