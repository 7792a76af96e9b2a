#!/bin/sh
# tools/issue5/s38/dev7.sh - run 7: w45b, the write launch behind a prefill's flush waiting for it at its end, with the
# input rows' visibility by an epoch the flush's block (0, 0) publishes (release) after its wait and the write blocks
# take (acquire): the flush-edge tests (both settings) and two interleaved rounds of bench --mode write.
O=${OUT:-build/s38_7}; . tools/issue5/s38/wlib.sh
flush_edges || exit 1
ab --wlate 0 2
