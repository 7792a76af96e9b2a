#!/bin/sh
# The tool's main commands under valgrind memcheck: no errors, no leaks.
# Usage: sh tests/test_valgrind.sh path/to/oscar
set -u
OSCAR=${1:-build/oscar}
if ! command -v valgrind >/dev/null 2>&1; then echo "SKIP: valgrind not installed"; exit 0; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/oscar-vg-XXXXXX")
trap 'rm -rf "$T"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible"
fail=0
run() { # name, command...
  name=$1; shift
  $VG "$@" >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc = 99 ]; then echo "  FAIL valgrind: $name"; cat "$T/err"; fail=1; else echo "  ok   valgrind: $name (exit $rc)"; fi
}
run "synth-dump" $OSCAR synth-dump -o "$T/d.safetensors" --layers 2 --tokens 64 --dim 16 --heads 4 --kv-heads 2 --dtype f16
run "fit" $OSCAR fit --qkv "$T/d.safetensors" -o "$T/r.safetensors" -t 2
run "fit --per-head" $OSCAR fit --qkv "$T/d.safetensors" -o "$T/rp.safetensors" --per-head -t 1
run "info" $OSCAR info "$T/r.safetensors"
run "info (bad file)" $OSCAR info "$T/d.safetensors"
run "demo" $OSCAR demo --tokens 700 --dim 32 --heads 4 --kv-heads 2 --queries 1
run "bad option" $OSCAR fit --qkv
exit $fail
