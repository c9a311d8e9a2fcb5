#!/usr/bin/env bash
# Checks that docs/op_kernels.md is what `tessera ops --markdown --plugin-allow cpu` prints:
#   scripts/check_ops_doc.sh TESSERA_PROGRAM DOC
# Prints the difference and how to regenerate the page, and exits 1, when they differ.
set -uo pipefail
program=$1
doc=$2
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
if ! "$program" ops --markdown --plugin-allow cpu >"$generated"; then
  echo "check_ops_doc: '$program ops --markdown --plugin-allow cpu' failed" >&2
  exit 1
fi
if ! diff -u "$doc" "$generated"; then
  echo "check_ops_doc: $doc differs from the registered ops and kernels; regenerate it with" >&2
  echo "  build/bin/tessera ops --markdown --plugin-allow cpu > docs/op_kernels.md" >&2
  exit 1
fi
echo "check_ops_doc: $doc matches the registered ops and kernels"
