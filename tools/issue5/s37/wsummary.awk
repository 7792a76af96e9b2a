# tools/issue5/s37/wsummary.awk - one line per (round, version) of the s37 write-path logs ("rN version" + bench lines):
# copy GB/s, H and dense one-call ms (idle GPU, back to back), 2048-token appends (H, dense)
{ k = $1 " " $2 } /copy bandwidth/ { c[k] = $(NF-5) } /H rotations: fast transform/ { split($0, a, "one append call: "); split(a[2], b, " "); h[k] = b[1] }
     /diag write path, dense/ { split($0, a, "one append call: "); split(a[2], b, " "); dn[k] = b[1] } /b2b, dense/ { split($0, a, "another: "); split(a[2], b, " "); db[k] = b[1] }
     /b2b, H rotations:/ { split($0, a, "another: "); split(a[2], b, " "); hb[k] = b[1] }
     /2048-token appends \(runs in/ { split($0, a, "appends \\(runs in the launches. parameters\\): "); split(a[2], b, " "); if (seenH[k]++) ca[k] = b[1]; else ch[k] = b[1] }
     { if (!(k in seen)) { seen[k] = 1; ks[++n] = k } }
     END { printf "%-10s %6s %8s %8s %8s %8s %9s %9s\n", "run", "copy", "H ms", "H b2b", "dense", "d b2b", "H 2048", "d 2048";
           for (i = 1; i <= n; i++) printf "%-10s %6s %8s %8s %8s %8s %9s %9s\n", ks[i], c[ks[i]], h[ks[i]], hb[ks[i]], dn[ks[i]], db[ks[i]], ch[ks[i]], ca[ks[i]] }
