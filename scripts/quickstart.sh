#!/usr/bin/env bash
# The README's first command: installs the Debian packages, builds Tessera, and runs its main job
# (the example MLP classifier) on the embedded default: a local session with the CPU plugin.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# The flags of the release stage of scripts/test.sh: the second command reuses this build.
bash scripts/build.sh build Release -DTESSERA_WERROR=ON
echo
echo "== tessera plugins"
build/bin/tessera plugins
echo
echo "== tessera run examples/mlp/mlp.pb"
build/bin/tessera run examples/mlp/mlp.pb \
  --feed x=examples/mlp/input.npy \
  --fetch probabilities --fetch predicted_class \
  --output-dir build/mlp-output
