#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera builds and tests with. Idempotent; needs root or sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  protobuf-compiler libprotobuf-dev
  libabsl-dev libeigen3-dev libboost-dev nlohmann-json3-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libdnnl-dev libopenblas-dev zlib1g-dev
  libgrpc++-dev
  python3 python3-numpy
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
