#!/usr/bin/env bash
# The fuzz stage: builds every fuzz target with clang's libFuzzer (tree build-fuzz: libraries and
# plugins under AddressSanitizer and UndefinedBehaviorSanitizer, with coverage) and runs each for
# TESSERA_FUZZ_SECONDS seconds (default 45) from its seed corpus, with libFuzzer's seed
# TESSERA_FUZZ_SEED (default 1). New inputs go to build-fuzz/fuzz-work/<target>/ (emptied at the
# start of each run, so that every run starts from the seeds, as CI does), never into the source
# tree; a crash, a timeout (25 s for one
# input) or an out-of-memory report fails the stage and leaves the input in
# build-fuzz/crashes/<target>/, to be added to the target's seed corpus once fixed.
# Exits non-zero when any target failed or could not be built; needs clang and libclang-rt-14-dev
# (scripts/setup.sh installs them).
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${TESSERA_FUZZ_SECONDS:-45}
# A fixed seed makes CI's runs explore the same inputs each time (so a pass here is a pass there);
# TESSERA_FUZZ_SEED=0 lets libFuzzer pick one, for exploring beyond them.
fuzz_seed=${TESSERA_FUZZ_SEED:-1}
if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: clang++ not found (scripts/setup.sh installs clang and libclang-rt-14-dev)"
  exit 1
fi

# target  seed folders (relative to the repository root; "@" is the build tree)
targets=(
  "graphdef_fuzzer @/host/graph/fuzz_corpus host/graph/fuzz/corpus"
  "npy_fuzzer host/client/fuzz/corpus host/client/testdata"
  "bundle_reader_fuzzer @/host/checkpoint/fuzz_corpus host/checkpoint/fuzz/corpus"
  "manifest_fuzzer registry/fuzz/corpus"
  "packed_strings_fuzzer host/runtime/fuzz/corpus"
  "rdma_wire_format_fuzzer plugins/rdma/fuzz/corpus"
  "graph_run_fuzzer tests/fuzz/corpus/graph_run"
  "graphdef_run_fuzzer @/tests/fuzz/graphdef_run_corpus"
  "c_api_fuzzer host/c_api/fuzz/corpus"
  "saved_model_fuzzer host/saved_model/fuzz/corpus"
)
names=()
for entry in "${targets[@]}"; do names+=("${entry%% *}"); done

if ! TESSERA_BUILD_TARGETS="tessera_all_plugins ${names[*]} graphdef_fuzz_corpus bundle_fuzz_corpus graphdef_run_fuzz_corpus" \
     CC=clang CXX=clang++ bash scripts/build.sh build-fuzz RelWithDebInfo \
     -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DTESSERA_BUILD_FUZZERS=ON \
     "-DTESSERA_SANITIZE=address;undefined;fuzzer-no-link" -DTESSERA_BUILD_BENCHMARKS=OFF; then
  echo "fuzz: the clang build failed"
  exit 1
fi

status=0
summary=()
for entry in "${targets[@]}"; do
  read -r name seeds <<<"$entry"
  work="build-fuzz/fuzz-work/$name"
  crashes="build-fuzz/crashes/$name"
  # Each run starts from the seeds alone, as CI's clean clone does.
  rm -rf "$work"
  mkdir -p "$work" "$crashes"
  dirs=()
  for seed in $seeds; do dirs+=("${seed/#@/build-fuzz}"); done
  echo "== fuzz $name for ${seconds}s"
  # detect_leaks=0: the targets keep process-wide registries on purpose; memory errors, undefined
  # behaviour, crashes, hangs and out-of-memory are what this stage looks for.
  if ASAN_OPTIONS=detect_leaks=0:intercept_tls_get_addr=0:allocator_may_return_null=1 \
     UBSAN_OPTIONS=print_stacktrace=1 TESSERA_PLUGIN_PATH= \
     "build-fuzz/bin/$name" -seed="$fuzz_seed" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 \
       -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "${dirs[@]}" \
       >"build-fuzz/fuzz-$name.log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/fuzz-$name.log" | grep -o '[0-9]*$')
    summary+=("$name: ${runs:-?} runs, no failure")
  else
    status=1
    summary+=("$name: FAILED (build-fuzz/fuzz-$name.log, input in $crashes/)")
    tail -n 40 "build-fuzz/fuzz-$name.log"
  fi
done
printf 'fuzz: %s\n' "${summary[@]}"
exit $status
