#!/usr/bin/env bash
# Proves the installed SDK works for a plugin author, as docs/sdk.md tells one to use it:
#   1. builds the release tree (unless TESSERA_SDK_CHECK_NO_BUILD=1: the caller just built it) and
#      installs it into a new prefix;
#   2. copies the plugin template from the prefix (share/tessera/sdk/template), configures it in
#      its own build folder with only -DCMAKE_PREFIX_PATH=<prefix>, builds it and runs its tests:
#      tessera-plugin-check on the plugin, and a graph through the installed `tessera run`;
#   3. builds the C API examples (examples/c_api) out of tree against the prefix, with
#      find_package(Tessera) and with pkg-config, and runs them;
#   4. imports the installed Python package from the prefix and runs a graph with it;
#   5. checks the version rule: a project asking for find_package(TesseraSDK <next major>.0) fails
#      to configure and says why.
# Usage: scripts/sdk_check.sh [BUILD_DIR]   (default: build). Exits non-zero on any failure and
# keeps its folder for inspection then; removes it on success.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${1:-build}
start=$SECONDS
if [[ ${TESSERA_SDK_CHECK_NO_BUILD:-0} != 1 ]]; then
  bash scripts/build.sh "$build_dir" Release -DTESSERA_WERROR=ON
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-sdk-check.XXXXXX")
ok=0
cleanup() {
  if [[ $ok == 1 ]]; then rm -rf "$work"; else echo "sdk: failed; its files are in $work" >&2; fi
}
trap cleanup EXIT
prefix=$work/prefix

echo "sdk: installing $build_dir into $prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null

config=$prefix/lib/cmake/TesseraSDK/TesseraSDKConfig.cmake
[[ -f $config ]] || { echo "sdk: $config was not installed" >&2; exit 1; }
abi_major=$(sed -n 's/^set(TesseraSDK_ABI_VERSION_MAJOR \([0-9]*\))$/\1/p' "$config")
abi_minor=$(sed -n 's/^set(TesseraSDK_ABI_VERSION_MINOR \([0-9]*\))$/\1/p' "$config")
echo "sdk: TesseraSDK $abi_major.$abi_minor installed"

# The template as a plugin author gets it: copied out of the prefix, nothing of this tree.
plugin_src=$work/myplugin
plugin_build=$work/myplugin-build
cp -r "$prefix/share/tessera/sdk/template" "$plugin_src"
# Paths relative to $work in ccache's keys, so that the next run's objects hit.
export CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
echo "sdk: configuring the template out of tree"
cmake -S "$plugin_src" -B "$plugin_build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >"$work/template-configure.log" 2>&1 || {
  cat "$work/template-configure.log"
  exit 1
}
cmake --build "$plugin_build"

if [[ ! -x $prefix/bin/tessera-plugin-check ]]; then
  echo "sdk: tessera-plugin-check is not installed in $prefix/bin" >&2
  exit 1
fi
# The listing is read whole first: grep -q would close the pipe early, and pipefail would then
# count ctest's broken pipe as a failure.
listed=$(cd "$plugin_build" && ctest -N)
grep -q "template_plugin_check" <<<"$listed" || {
  echo "sdk: the template did not add its kit test template_plugin_check" >&2
  exit 1
}
(cd "$plugin_build" && ctest --output-on-failure)

# The version rule: another major is refused, and the reason is printed.
wants=$((abi_major + 1)).0
mkdir -p "$work/wants-next-major"
cat >"$work/wants-next-major/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(wants_next_major LANGUAGES NONE)
find_package(TesseraSDK $wants REQUIRED)
EOF
if cmake -S "$work/wants-next-major" -B "$work/wants-next-major/build" \
     -DCMAKE_PREFIX_PATH="$prefix" >"$work/wants-next-major.log" 2>&1; then
  echo "sdk: find_package(TesseraSDK $wants) was accepted by TesseraSDK $abi_major.$abi_minor" >&2
  exit 1
fi
expected="it provides plugin ABI major $abi_major and the request needs major ${wants%%.*}"
grep -qF "$expected" "$work/wants-next-major.log" || {
  echo "sdk: find_package(TesseraSDK $wants) failed without saying '$expected':" >&2
  cat "$work/wants-next-major.log" >&2
  exit 1
}
echo "sdk: find_package(TesseraSDK $wants) is refused: $(grep -F "$expected" "$work/wants-next-major.log" | sed 's/^-- //')"

# The C API as its clients use it: the example programs configured out of tree against the
# prefix (find_package(Tessera), warnings as errors) and run, then compiled again with the flags
# pkg-config gives. The installed library has no RUNPATH: the programs find it through
# LD_LIBRARY_PATH, and it finds the plugins beside itself.
capi_src=$work/c_api_examples
capi_build=$work/c_api_examples-build
cp -r examples/c_api "$capi_src"
echo "sdk: configuring the C API examples out of tree"
cmake -S "$capi_src" -B "$capi_build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DTESSERA_EXAMPLE_GRAPH="$PWD/examples/mlp/mlp.pb" -DCMAKE_C_COMPILER_LAUNCHER=ccache \
  >"$work/c-api-configure.log" 2>&1 || {
  cat "$work/c-api-configure.log"
  exit 1
}
cmake --build "$capi_build"
(cd "$capi_build" && TESSERA_PLUGIN_PATH= ctest --output-on-failure)
pc_flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs tessera-c)
cc -std=c11 -Wall -Wextra -pedantic-errors -Werror "$capi_src/load_frozen_graph.c" $pc_flags \
  -o "$work/load_frozen_graph_pc"
LD_LIBRARY_PATH=$prefix/lib TESSERA_PLUGIN_PATH= "$work/load_frozen_graph_pc" examples/mlp/mlp.pb \
  | grep -q "class 2" || {
  echo "sdk: load_frozen_graph built with pkg-config flags ($pc_flags) did not classify the points" >&2
  exit 1
}
echo "sdk: the C API examples pass against the prefix (CMake package and pkg-config)"

# The Python package from the prefix: it must load the prefix's library, and run a graph.
source_dir=$PWD
python_out=$(cd "$work" && PYTHONPATH=$prefix/lib/python3/dist-packages TESSERA_PLUGIN_PATH= \
  /usr/bin/python3 -c "
import tessera, tessera._c as c
print(c.lib._name)
print(tessera.Session('$source_dir/examples/mlp/mlp.pb').run('predicted_class:0',
      {'x:0': [[0.2, 0.3], [1.2, -0.5], [-2.5, 1.0]]}).tolist())")
grep -qF "$prefix/lib/libtessera_c.so" <<<"$python_out" && grep -qF "[0, 1, 2]" <<<"$python_out" || {
  echo "sdk: the installed Python package did not load the prefix's library or run the graph:" >&2
  echo "$python_out" >&2
  exit 1
}
echo "sdk: the installed Python package runs the graph with the prefix's library"

ok=1
echo "sdk: passed in $((SECONDS - start)) s"
