#!/bin/sh
# tools/issue5/s42/dev1.sh - the forty-first session's final tree (b302c17: the GPU harness's odd layers take
# append_wlate 1 with append_wsplit 0, not run on a GPU before): the whole GPU test; then the block records over the
# chunked prefill (s41/dev8.sh, two rounds: where an append after a late-waiting first one spends its ~1.5 us).
# (Run 1 ran these lines inline; the test's lines moved into wlib.sh's whole_test afterwards.)
O=${OUT:-build/s42_1}; . tools/issue5/s38/wlib.sh
whole_test
OUT="$O" ROUNDS="1 2" sh tools/issue5/s41/dev8.sh
cp /tmp/rec_*.chunk "$O/" 2>/dev/null; ls -la "$O"
cd "$O" && tar czf recs.tgz *.chunk 2>/dev/null; rm -f *.chunk
