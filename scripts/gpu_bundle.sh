#!/usr/bin/env bash
# Packs what a GPU machine needs to run Tessera's GPU checks into one relocatable archive, for a
# machine that has the NVIDIA driver and CUDA but none of Debian's libraries:
#   scripts/gpu_bundle.sh [BUILD_DIR] [OUT.tar.xz]      (defaults: build, gpu-bundle.tar.xz)
# The archive holds bin/ (tessera, tessera_train_digits, cuda_plugin_test,
# gpu_kernels_emulation_test), lib/tessera/plugins/ (the cpu and cuda plugins and manifests), lib/
# (every shared library they load, from ldd, glibc and its loader included, except the CUDA
# libraries the GPU machine has: libcuda, libcudart, libcublas, libcublasLt, libcudnn), data/ (the
# digits) and run.sh, which starts a bundled program through the bundled loader so that the
# machine's own glibc does not matter:
#   tar xf gpu-bundle.tar.xz && gpu-bundle/run.sh tessera plugins
#   gpu-bundle/checks.sh        # the GPU tests and the digits on the GPU
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-gpu-bundle.tar.xz}
plugin_dir="$build/lib/tessera/plugins"
if [[ ! -f $plugin_dir/libtessera_cuda.so ]]; then
  echo "gpu_bundle: $plugin_dir/libtessera_cuda.so is missing: build with a CUDA toolkit first" >&2
  exit 1
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/gpu-bundle"
mkdir -p "$root/bin" "$root/lib/tessera/plugins" "$root/data"
programs=(tessera tessera_train_digits cuda_plugin_test gpu_kernels_emulation_test)
for program in "${programs[@]}"; do cp "$build/bin/$program" "$root/bin/"; done
for plugin in cpu cuda; do
  cp "$plugin_dir/libtessera_$plugin.so" "$plugin_dir/$plugin.tessera-plugin.json" \
     "$root/lib/tessera/plugins/"
done
cp examples/data/digits.csv.gz "$root/data/"
# The shared-library closure, minus what the GPU machine brings (its driver and CUDA).
ldd "${programs[@]/#/$build/bin/}" "$plugin_dir/libtessera_cpu.so" "$plugin_dir/libtessera_cuda.so" |
  awk '/=> \// { print $3 } /^\t\/lib64\/ld-linux/ { print $1 }' | sort -u |
  grep -Ev '/lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*)\.so' |
  while read -r library; do cp -L "$library" "$root/lib/"; done
cat > "$root/run.sh" <<'RUN'
#!/usr/bin/env bash
# run.sh PROGRAM [ARGS...]: a bundled program through the bundled loader and libraries, with the
# machine's CUDA libraries (LD_LIBRARY_PATH, /usr/local/cuda) after them.
here=$(cd "$(dirname "$0")" && pwd)
program=$1
shift
cuda=${CUDA_HOME:-/usr/local/cuda}
exec "$here/lib/ld-linux-x86-64.so.2" \
  --library-path "$here/lib:${LD_LIBRARY_PATH:-}:$cuda/lib64:$cuda/lib:/usr/lib/x86_64-linux-gnu" \
  "$here/bin/$program" "$@"
RUN
cat > "$root/checks.sh" <<'CHECKS'
#!/usr/bin/env bash
# The GPU checks: the plugins found, the GPU plugin's tests (the refusal test skips where a GPU
# loads; the graph tests run), the kernels on the CPU emulation, and the digits MLP on the GPU.
here=$(cd "$(dirname "$0")" && pwd)
status=0
"$here/run.sh" tessera plugins || status=1
TESSERA_TEST_PLUGIN_DIR="$here/lib/tessera/plugins" "$here/run.sh" cuda_plugin_test || status=1
"$here/run.sh" gpu_kernels_emulation_test --gtest_brief=1 || status=1
"$here/run.sh" tessera_train_digits --model mlp --epochs 20 --min-test-accuracy 0.95 --gpus 1 \
  --data "$here/data/digits.csv.gz" || status=1
exit $status
CHECKS
chmod +x "$root/run.sh" "$root/checks.sh"
tar -C "$stage" -cJf "$out" gpu-bundle
echo "gpu_bundle: $out ($(du -h "$out" | cut -f1); $(du -sh "$root" | cut -f1) unpacked)"
