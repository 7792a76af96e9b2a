sh tools/issue5/w23/dev1.sh 2>&1
echo "== full test_cuda --gpu (default build)"
timeout 240 ./build/test_cuda --gpu > $OUT/full.log 2>&1; echo "full rc=$? $(grep -c '^ok' $OUT/full.log) ok, $(grep -c FAIL $OUT/full.log) FAIL"
