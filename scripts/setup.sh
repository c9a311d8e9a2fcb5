#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera builds and tests with. Idempotent; needs root or sudo.
set -euo pipefail

# Each package, with what needs it. A new find_package, find_program, find_library,
# pkg_check_modules or tool called by a script or test needs its package here;
# scripts/fresh_machine_check.sh proves the list in a new Debian 12 root.
packages=(
  build-essential     # gcc, g++, make; binutils' nm for the plugin symbol test
  cmake ninja-build   # the build (scripts/build.sh)
  ccache              # find_program(ccache): compiler cache
  pkg-config          # pkg_check_modules: grpc++ (without the CMake package), openblas, ucx;
                      # sdk_check.sh builds a C API client with pkg-config's flags
  protobuf-compiler libprotobuf-dev  # find_package(Protobuf), protoc for host/**/proto
  libabsl-dev         # find_package(absl)
  libeigen3-dev       # find_package(Eigen3): the CPU plugin's kernels
  libboost-dev        # find_package(Boost): Boost.DLL loads plugins
  nlohmann-json3-dev  # find_package(nlohmann_json): plugin manifests
  libcli11-dev        # find_package(CLI11): the tessera program's command line
  libre2-dev          # pkg_check_modules(re2): StaticRegexFullMatch
  libssl-dev          # find_package(OpenSSL): manifest sha256, transport TLS
  libgtest-dev libgmock-dev  # find_package(GTest)
  libbenchmark-dev    # find_package(benchmark): bench/
  libdnnl-dev         # find_path(dnnl.h), find_library(dnnl): the CPU plugin's MatMul/Conv2D
  libopenblas-dev     # pkg_check_modules(openblas): double MatMul
  zlib1g-dev          # find_package(ZLIB): the digits data (examples/, bench/)
  libgrpc++-dev       # gRPC (CMake package or pkg-config grpc++): the grpc transport plugin
  protobuf-compiler-grpc  # /usr/bin/grpc_cpp_plugin, without which gRPC's CMake package fails
  libucx-dev          # pkg_check_modules(ucx): the rdma transport plugin (UCX 1.13)
  python3 python3-numpy   # the .npy cross-checks (npy_test), the testdata generators, the Python package
  python3-pytest      # the Python package's tests (host/python/tests)
  python3-dev         # find_package(Python3 Development): the package's C step (tessera._fastrun)
  openssl             # kit/tls/make_test_certs.sh, integration tests' TLS
  clang libclang-rt-14-dev  # scripts/fuzz.sh: the libFuzzer targets
  hipcc libamdhip64-dev  # find_program(hipcc), find_library(amdhip64): plugins/rocm, the HIP build
                         # of the GPU plugin (builds and loads without an AMD GPU)
)

# The op oracle's test-only npm packages (TensorFlow.js's CPU backend, versions pinned by
# tests/oracle/package-lock.json). Optional: only regenerating tests/oracle/cases.json needs them,
# so without npm, or without the registry, the oracle_cases_up_to_date test is skipped.
oracle_npm_packages() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/oracle"
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: npm not found; skipping the op oracle's npm packages (only needed to regenerate tests/oracle/cases.json)"
  elif [[ -f $dir/node_modules/.package-lock.json &&
          ! $dir/package-lock.json -nt $dir/node_modules/.package-lock.json ]]; then
    echo "setup: the op oracle's npm packages are installed"
  elif (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "setup: installed the op oracle's npm packages (npm ci in tests/oracle)"
  else
    echo "setup: 'npm ci' in tests/oracle failed; oracle_cases_up_to_date will be skipped"
  fi
}
oracle_npm_packages

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
