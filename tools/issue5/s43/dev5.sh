#!/bin/sh
# tools/issue5/s43/dev5.sh - v66 (the cluster merge without block barriers, its second cluster barrier split) under
# compute-sanitizer: memcheck (leak check), racecheck, synccheck, initcheck over the graph-capture group (INT2 H, INT2
# fitted and BF16 caches; batch 40 x 2 KV heads = 80 pairs goes through the cluster merge).
O=${OUT:-build/s43_5}; . tools/issue5/s38/wlib.sh
sanitize "graph capture"
cd "$O" && tar czf san.tgz san_*.log && rm -f san_*.log
