#!/bin/sh
# device run: the four compute-sanitizer tools over test_cuda --gpu --quick, then memcheck and
# initcheck over the layout cases (page sizes 16, 32, 48: the INT2 staging's other tile sizes)
OUT=$OUT/q timeout 420 sh tools/gpu_sanitize.sh 2>&1 | grep -E "clean|NOT|SKIP"
for tool in memcheck initcheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 ./build/test_cuda --gpu --only layout > "$OUT/layout_$tool.log" 2>&1
    echo "layout $tool: rc $? $(grep -E 'ERROR SUMMARY' "$OUT/layout_$tool.log" | tail -1) $(grep -c '^ok' "$OUT/layout_$tool.log") ok $(grep -c FAIL "$OUT/layout_$tool.log") FAIL"
done
