#!/bin/sh
# tools/issue5/s42/dev4.sh - w49's 16-job write blocks that wait for the flush at their start (new: before, only the late
# write launch ran them) under compute-sanitizer's four tools: the flush edges (first pass: the rule, append_wsplit 0) and
# the wide batch (70 sequences' one-token appends of a dense cache, 2 tiles per (KV head, K|V): 16-job blocks on odd
# layers, whole tiles on even ones since the test's append_batch_both sets append_wsplit per layer); then the whole GPU test.
O=${OUT:-build/s42_4}; . tools/issue5/s38/wlib.sh
sanitize "flush edges"
sanitize "wide batch"
whole_test
cd "$O" && tar czf san_logs.tgz san_*.log && rm -f san_*.log
