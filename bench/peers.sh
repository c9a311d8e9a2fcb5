#!/usr/bin/env bash
# Runs the peer benchmark harness with Tessera's runner (tessera_peer_runner) as one column.
#
#   bash bench/peers.sh HARNESS_DIR [driver options...]
#   e.g. bash bench/peers.sh ~/peers --passes 3 --workloads w4,w5,w6
#
# HARNESS_DIR is the harness's folder (driver.py, runners.txt, Makefile). It is copied to
# $TESSERA_PEERS_WORK (default /tmp/tessera-peers) and built there. Without --peers this runs
# ONNX Runtime (through onnxruntime-node when ORT's C API header is absent), oneDNN, OpenBLAS,
# Eigen, raw (memcpy and the FMA peak) and Tessera; libtorch is left out unless asked for with
# --peers (it needs Debian's libtorch-dev, about 1 GB, which this script does not install).
# Installs what the chosen peers need: python3-onnx (the ONNX models) and onnxruntime-node from
# the npm registry. Uses build/bin/tessera_peer_runner, building it if missing.
set -euo pipefail
if [[ $# -lt 1 || ! -f $1/driver.py ]]; then
  echo "usage: bash bench/peers.sh HARNESS_DIR [driver options]  (HARNESS_DIR holds driver.py)" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
harness=$(cd "$1" && pwd)
shift
work=${TESSERA_PEERS_WORK:-/tmp/tessera-peers}
ort_version=${ORT_VERSION:-1.30.0}
ort_node_root=${ORT_NODE_ROOT:-/opt/peers/ort-node}

sudo_if_needed() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

missing=""
for p in python3-onnx python3-numpy libopenblas-dev libdnnl-dev libeigen3-dev g++ make; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [[ -n $missing ]]; then
  echo "peers: installing$missing"
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    $missing >/dev/null
fi

# npm: on PATH, or the copy that NodeSource's nodejs package bundles.
npm_cmd=(npm)
if ! command -v npm >/dev/null 2>&1; then
  if [[ -f /usr/lib/node_modules/npm/bin/npm-cli.js ]]; then
    npm_cmd=(node /usr/lib/node_modules/npm/bin/npm-cli.js)
  else
    echo "peers: npm not found; install Debian's npm to get the ONNX Runtime peer" >&2
    exit 1
  fi
fi
if [[ ! -f $ort_node_root/node_modules/onnxruntime-node/package.json ]]; then
  echo "peers: installing onnxruntime-node@$ort_version into $ort_node_root"
  sudo_if_needed mkdir -p "$ort_node_root"
  [[ -f $ort_node_root/package.json ]] ||
    echo '{"name":"ort-node-peer","private":true}' | sudo_if_needed tee "$ort_node_root/package.json" >/dev/null
  (cd "$ort_node_root" &&
    sudo_if_needed "${npm_cmd[@]}" install --ignore-scripts --no-audit --no-fund --silent \
      "onnxruntime-node@$ort_version")
fi
export ORT_NODE_DIR=$ort_node_root/node_modules/onnxruntime-node

mkdir -p "$work"
cp -r "$harness"/. "$work"/
make -s -C "$work" -j2 build/gemm_openblas build/gemm_onednn build/gemm_eigen models
# The harness's raw runner (memcpy, FMA peak) is written with AVX-512 intrinsics; on a CPU without
# AVX-512 it does not compile and the table has no FMA-peak percentages (bench/fma_peak.cc, used by
# gemm_conv_bench, measures the peak with AVX2 there).
make -s -C "$work" build/raw_runner 2>/dev/null ||
  echo "peers: the harness's raw runner did not build (it needs AVX-512); raw is skipped"

if [[ ! -x $repo/build/bin/tessera_peer_runner ]]; then
  cmake --build "$repo/build" --target tessera_peer_runner
fi

peers=(--peers ort,ort_node,onednn,openblas,eigen,raw,tessera)
for arg in "$@"; do [[ $arg == --peers* ]] && peers=(); done
echo "peers: CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
cd "$work"
PATH="$repo/build/bin:$PATH" PEERS_WITH_ORT_NODE=1 /usr/bin/python3 driver.py "${peers[@]}" "$@"
