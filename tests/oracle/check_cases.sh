#!/usr/bin/env bash
# Regenerates the oracle's cases into OUTPUT and fails when they differ from the committed
# cases.json: check_cases.sh OUTPUT. Exits 77 (skipped) without node or the npm packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
output=${1:?usage: check_cases.sh OUTPUT}

if ! command -v node >/dev/null 2>&1; then
  echo "skipped: node not found (cases.json is committed; node only regenerates it)"
  exit 77
fi
if [[ ! -d $here/node_modules/@tensorflow/tfjs-backend-cpu ]]; then
  echo "skipped: no tests/oracle/node_modules (run 'npm ci' in tests/oracle, as scripts/setup.sh does where npm is installed)"
  exit 77
fi
node "$here/generate_cases.js" "$output"
if ! cmp -s "$output" "$here/cases.json"; then
  echo "tests/oracle/cases.json differs from what generate_cases.js writes now ($output):"
  diff "$here/cases.json" "$output" | head -n 20
  echo "regenerate it: (cd tests/oracle && npm run generate), then run oracle_diff_test"
  exit 1
fi
echo "cases.json is up to date"
