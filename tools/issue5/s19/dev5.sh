#!/bin/sh
# tools/issue5/s19/dev5.sh - nineteenth session, device run 5 (repository root): the whole test_cuda
# --gpu on the session's last commit (attn_tol, exact_attend, put_o, oscar__row_fold).
O=${OUT:-build/s19e}; mkdir -p "$O"
make -s build/test_cuda >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
git log --oneline | head -1
timeout 400 ./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 6 FAIL "$O/full.log"
grep "^ok" "$O/full.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 " " $3 } } } END { print "worst err/tol: " m " (" c ")" }'
true
