#!/bin/sh
# CLI test: synth-dump -> fit -> info for every composition and dtype, and bad input rejected
# with a clear message and a non-zero exit. Usage: sh tests/test_cli.sh path/to/oscar
set -u
OSCAR=${1:-build/oscar}
T=$(mktemp -d "${TMPDIR:-/tmp}/oscar-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "  ok   $1"; }
bad() { echo "  FAIL $1"; fail=1; }
expect_ok() { # name, command...
  name=$1; shift
  if "$@" >"$T/out" 2>"$T/err"; then ok "$name"; else bad "$name (exit $?)"; cat "$T/err"; fi
}
expect_fail() { # name, pattern, command...
  name=$1; pat=$2; shift 2
  if "$@" >"$T/out" 2>"$T/err"; then bad "$name (should fail)";
  elif grep -q "$pat" "$T/err"; then ok "$name";
  else bad "$name (message lacks '$pat')"; cat "$T/err"; fi
}
echo "oscar CLI tests ($OSCAR)"
for dt in f32 f16 bf16; do
  expect_ok "synth-dump $dt" $OSCAR synth-dump -o "$T/dump-$dt.safetensors" --layers 3 --tokens 300 --dim 32 --heads 4 --kv-heads 2 --dtype $dt
done
for comp in r_h_pbr hadamard identity plain; do
  expect_ok "fit $comp" $OSCAR fit --qkv "$T/dump-f32.safetensors" -o "$T/rot-$comp.safetensors" --composition $comp -t 2
  expect_ok "info $comp" $OSCAR info "$T/rot-$comp.safetensors"
  grep -q "composition   $comp" "$T/out" && ok "info names $comp" || bad "info names $comp"
done
expect_ok "fit --per-head bf16 dump" $OSCAR fit --qkv "$T/dump-bf16.safetensors" -o "$T/rot-ph.safetensors" --per-head --k-clip 0.9 --v-clip -1 --group 16
expect_ok "info per-head" $OSCAR info "$T/rot-ph.safetensors"
grep -q "one rotation per KV head" "$T/out" && grep -q "K 0.9, V -1" "$T/out" && grep -q "group size    16" "$T/out" && ok "info shows options" || { bad "info shows options"; cat "$T/out"; }
orth=$(sed -n 's/^orthogonality max |R^T R - I| = //p' "$T/out")
awk -v e="$orth" 'BEGIN { exit !(e + 0 <= 1e-6) }' && ok "orthogonality $orth <= 1e-6" || bad "orthogonality $orth"
# the same dump in F32 and BF16 gives rotations that differ only by the input rounding
expect_ok "fit bf16 dump" $OSCAR fit --qkv "$T/dump-bf16.safetensors" -o "$T/rot-bf16.safetensors"
for cmd in fit info demo bench synth-dump; do expect_ok "$cmd --help" $OSCAR $cmd --help; done
expect_fail "missing file" "cannot open" $OSCAR info "$T/nope.safetensors"
printf 'garbage' > "$T/garbage.safetensors"
expect_fail "garbage file" "too short" $OSCAR info "$T/garbage.safetensors"
expect_fail "dump as rotation file" "not an oscar rotation file" $OSCAR info "$T/dump-f32.safetensors"
expect_fail "rotation file as dump" "not a calibration dump" $OSCAR fit --qkv "$T/rot-r_h_pbr.safetensors" -o "$T/x.safetensors"
expect_fail "bad composition" "unknown composition" $OSCAR fit --qkv "$T/dump-f32.safetensors" -o "$T/x.safetensors" --composition nope
expect_fail "bad clip" "expects a number" $OSCAR fit --qkv "$T/dump-f32.safetensors" -o "$T/x.safetensors" --k-clip 1.5
expect_fail "bad group" "power of two" $OSCAR fit --qkv "$T/dump-f32.safetensors" -o "$T/x.safetensors" --group 24
expect_fail "missing value" "needs a value" $OSCAR fit --qkv
expect_fail "unknown command" "unknown command" $OSCAR frobnicate
expect_ok "small demo" $OSCAR demo --tokens 1200 --dim 64 --heads 4 --kv-heads 2 --queries 2
grep -q "oscar " "$T/out" && ok "demo prints the oscar row" || bad "demo output"
[ $fail = 0 ] && echo "CLI tests passed" || echo "CLI tests FAILED"
exit $fail
