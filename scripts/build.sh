#!/usr/bin/env bash
# Configures and builds one build tree: scripts/build.sh DIR BUILD_TYPE [extra cmake args...].
# TESSERA_BUILD_TARGETS limits the build to the targets it names.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-build}
type=${2:-Release}
shift $(( $# > 2 ? 2 : $# ))
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache "$@" >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
targets=()
if [[ -n ${TESSERA_BUILD_TARGETS:-} ]]; then targets=(--target ${TESSERA_BUILD_TARGETS}); fi
cmake --build "$dir" -j "$jobs" "${targets[@]}"
