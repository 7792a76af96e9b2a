#!/bin/sh
# tools/issue5/s31/dev5.sh - run 5: each warp codes the rows it rotated, no block barrier between the phases
# (OSCAR_APPEND_WLOCAL=1, the thirtieth session's w33, level then at 5 blocks per SM), now with oscar_append_w (8 blocks
# per SM) on the long launches: the flush and nonfinite tests with it, then the write path against the default, three
# rounds. (`git apply tools/issue5/s31/w33_wlocal_s31.patch` and `make embed` first.)
sh tools/issue5/s31/optab.sh -DOSCAR_APPEND_WLOCAL=1
