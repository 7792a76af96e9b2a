set -e
mkdir -p build; make -s build/test_cuda build/bench_gpu >/dev/null
W="-DOSCAR_APPEND_WGMMA=1"
for o in "$W -DOSCAR_APPEND_MINB=3" "$W -DOSCAR_APPEND_WPIPE=0" "$W"; do
  OSCAR_CUDA_NVRTC_OPTIONS="$o" ./build/test_cuda --gpu --only flush > /tmp/f.log 2>&1 || true
  echo "flush [$o]: $(grep -c '^ok' /tmp/f.log) ok, $(grep -c FAIL /tmp/f.log) FAIL"; grep -m3 FAIL /tmp/f.log || true
done
./build/test_cuda --gpu --only oom > /tmp/o.log 2>&1 || true; echo "oom: $(grep -c '^ok' /tmp/o.log) ok, $(grep -c FAIL /tmp/o.log) FAIL"; grep -m3 "FAIL\|center" /tmp/o.log || true
sh tools/gpu_wvar.sh "" "$W" "$W -DOSCAR_APPEND_MINB=3" "$W -DOSCAR_APPEND_WPIPE=0" "$W -DOSCAR_APPEND_MINB=3 -DOSCAR_APPEND_PROF=1" "$W -DOSCAR_APPEND_MINB=3" 2>&1 | grep -v "appends\|pages of"
TEST=0 OUT=$OUT/wab sh tools/gpu_wab.sh 2>&1 | grep "dense\|copy\|diag"
