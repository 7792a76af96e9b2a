#!/bin/sh
# tools/issue5/s31/dev12.sh - prepared for the next session, not run (no device time left): OSCAR_APPEND_HOIST=1, the
# rotation loop's B pointer and Y store addresses from per-thread bases set before the loop (nvdisasm of the nvcc sm_90a
# cubin: oscar_append_w's loop 71 -> 62 instructions per chunk, 315 -> 288 cycles of fixed stalls, 32 -> 20 B spilled;
# oscar_append's 110 -> 103 per chunk of 2 n-tiles). The flush and nonfinite tests with it (pages byte for byte against
# the CPU), then the write path against the default, three rounds interleaved.
sh tools/issue5/s31/optab.sh -DOSCAR_APPEND_HOIST=1
