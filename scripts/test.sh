#!/usr/bin/env bash
# The README's second command: installs the Debian packages, builds, and passes every test:
#   1. the release build with warnings as errors, all tests;
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build, all tests;
#   3. a ThreadSanitizer build of the executor, rendezvous, session, control-flow, multi-device,
#      distributed-runtime, transport and CPU device memory tests and the GPU kernels on the CPU
#      emulation (label "tsan"; the distributed ones over the in-process loopback transport, since
#      Debian's gRPC is not built with TSan; the rdma transport's own code, with UCX
#      uninstrumented);
#   4. the fuzz targets built with clang's libFuzzer, each run for a bounded time (scripts/fuzz.sh);
#   5. the SDK (scripts/sdk_check.sh): the release build installed into a new prefix, the plugin
#      template built out of tree against it and its tests run (the conformance kit on it, a
#      graph through the installed `tessera run`), and the package's version rule.
# Set TESSERA_SKIP_SANITIZERS=1 to run only the first and the last. With TESSERA_FRESH_MACHINE_CHECK=1 (set by
# CI) it also runs scripts/fresh_machine_check.sh, which proves both README commands in a new
# Debian 12 root, after the sanitizer builds. The release build comes last and shares its build
# tree with scripts/quickstart.sh (same flags), so after the first command it rebuilds nothing.
# Exits non-zero when any test fails and ends with ctest's own summary.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || exit 1
status=0
# A full run writes about 15 GB of build trees (most of it the sanitizer tree); a full disk shows up
# later only as a linker's "No space left on device", so say so first.
free_gb=$(df -Pk . | awk 'NR == 2 { printf "%d", $4 / 1048576 }')
echo "== Free disk space for the build trees: ${free_gb} GB"
if ((free_gb < 20)); then
  echo "warning: less than 20 GB free here; the sanitizer builds may fail with 'No space left on device'"
fi
jobs=$(nproc 2>/dev/null || echo 2)
stage_times=()
stage_start=$SECONDS
end_stage() {  # NAME: records how long the stage that began at stage_start took
  local s=$((SECONDS - stage_start))
  stage_times+=("$1 $((s / 60))m$(printf '%02d' $((s % 60)))s")
  stage_start=$SECONDS
}

run_ctest() {  # DIR [ctest args...]
  local dir=$1
  shift
  (cd "$dir" && ctest --output-on-failure --timeout 900 -j "$jobs" "$@") || status=1
}

if [[ ${TESSERA_SKIP_SANITIZERS:-0} != 1 ]]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer build"
  # -g1: line tables and function names only, which is all a sanitizer report needs. Every test
  # binary links the runtime statically, so full debug info made this tree about 23 GB (200 MB per
  # test binary); with -g1 it is about 13 GB (106 MB), and it compiles faster.
  if bash scripts/build.sh build-asan RelWithDebInfo "-DTESSERA_SANITIZE=address;undefined" \
       -DTESSERA_BUILD_BENCHMARKS=OFF "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
       "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"; then
    # intercept_tls_get_addr=0: with GCC 12's runtime, LeakSanitizer's tracer crashes at exit
    # ("Tracer caught signal 11") in processes that ran oneDNN from the CPU plugin's pool threads.
    # lsan_suppressions.txt: c-ares (under gRPC) keeps one allocation until exit.
    # allocator_may_return_null=1: as the system allocator, an impossible size (the conformance
    # kit asks a device for 2^62 bytes) is NULL, answered as RESOURCE_EXHAUSTED, not an abort.
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0:allocator_may_return_null=1 \
      LSAN_OPTIONS="suppressions=$PWD/scripts/lsan_suppressions.txt" \
      UBSAN_OPTIONS=print_stacktrace=1 run_ctest build-asan
  else
    echo "asan build failed"; status=1
  fi
  end_stage asan

  echo "== ThreadSanitizer build (executor, rendezvous, session, control flow, several devices, distributed runtime, transports, CPU device memory, concurrent C API steps, the GPU kernels on the CPU emulation)"
  if TESSERA_BUILD_TARGETS="tessera_all_plugins rendezvous_test executor_test session_test control_flow_session_test multi_device_test distributed_test transport_conformance_test loopback_transport_test rdma_transport_test in_process_channel_test cpu_host_memory_test c_api_threads_test gpu_kernels_emulation_test" \
       bash scripts/build.sh build-tsan RelWithDebInfo -DTESSERA_SANITIZE=thread \
       -DTESSERA_BUILD_BENCHMARKS=OFF; then
    # tsan_suppressions.txt: an exit-time race inside UCX between its own threads.
    TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/scripts/tsan_suppressions.txt" \
      run_ctest build-tsan -L tsan
  else
    echo "tsan build failed"; status=1
  fi
  end_stage tsan

  echo "== Fuzzers (clang libFuzzer, ${TESSERA_FUZZ_SECONDS:-45} s per target)"
  bash scripts/fuzz.sh || status=1
  end_stage fuzz
fi

if [[ ${TESSERA_FRESH_MACHINE_CHECK:-0} == 1 ]]; then
  echo "== Fresh machine: both README commands in a new Debian 12 root"
  bash scripts/fresh_machine_check.sh || status=1
  end_stage fresh-machine
fi

if ((${#stage_times[@]})); then
  echo "== Stages so far: ${stage_times[*]}"
fi

echo "== Release build (warnings are errors)"
if bash scripts/build.sh build Release -DTESSERA_WERROR=ON; then
  # Before the release tests, so that ctest's summary stays the last lines.
  echo "== SDK: the release build installed, the plugin template built and tested against it"
  stage_start=$SECONDS
  TESSERA_SDK_CHECK_NO_BUILD=1 bash scripts/sdk_check.sh build || status=1
  end_stage sdk
  echo "== Stages: ${stage_times[*]}"
  run_ctest build
else
  echo "release build failed"; status=1
fi
exit $status
