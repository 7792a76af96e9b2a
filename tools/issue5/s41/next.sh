#!/bin/sh
# tools/issue5/s41/next.sh - for the next session (this one was lent H200s only and spent its device time). Call 1 on
# an H100: the whole GPU test, the fortieth session's stagger A/B and the decode quick rows (s40/next_h100.sh), ~6 min.
# Call 2 (any card): why an append after a late-waiting first one costs ~1.5 us more (dev8.sh, block records over the
# chunked prefill, two rounds), then the write path's single and chunked figures by append_wlate (dev5.sh's A/B).
case "$1" in
1) sh tools/issue5/s40/next_h100.sh ;;
2) ROUNDS="1 2" sh tools/issue5/s41/dev8.sh; sh tools/issue5/s41/dev5.sh ;;
*) echo "usage: sh tools/issue5/s41/next.sh 1|2"; exit 2 ;;
esac
