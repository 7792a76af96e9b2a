#!/bin/sh
# device run (H200): the issue-5 table of the working tree (tools/gpu_issue5.sh full)
OUT=$OUT/h200 sh tools/gpu_issue5.sh full 2>&1 | tail -42
tar czf "$OUT/h200.tgz" -C "$OUT" h200 && rm -rf "$OUT/h200"
