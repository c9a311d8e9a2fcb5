"""The Python package beside the C++ API, in one run:
  - session.run of a 1-node Identity graph with a 1-float numpy feed, in Python, beside
    Session::Run of the same graph measured by bench/c_api_bench.cc (BM_SessionRunIdentity, run
    by this script);
  - feeding and fetching a 64 MiB float32 array through Identity (zero copy: the fetched array is
    the fed memory), as GB/s beside numpy's copy of the same 64 MiB.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py build/bin/c_api_bench
"""
import json
import os
import platform
import subprocess
import sys
import timeit

import numpy as np

import tessera
from tessera import ops


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def best_of(function, number, repeat=7):
    return min(timeit.repeat(function, number=number, repeat=repeat)) / number


def main():
    c_api_bench = sys.argv[1] if len(sys.argv) > 1 else os.path.join("build", "bin", "c_api_bench")
    graph = tessera.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=tessera.float32, name="x")
        y = ops.identity(x, name="y")
    session = tessera.Session(graph)
    one = np.ones([1], np.float32)
    session.run(y, {x: one})
    python_us = best_of(lambda: session.run(y, {x: one}), 20000) * 1e6
    callable_run = session.make_callable(y, [x])
    callable_us = best_of(lambda: callable_run(one), 20000) * 1e6

    result = subprocess.run(
        [c_api_bench, "--benchmark_filter=BM_SessionRunIdentity$|BM_TFSessionRunIdentity$",
         "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
         "--benchmark_format=json"], capture_output=True, text=True, check=True)
    medians = {b["run_name"]: b["real_time"] * (1e-3 if b["time_unit"] == "ns" else 1)
               for b in json.loads(result.stdout)["benchmarks"] if b["aggregate_name"] == "median"}
    cpp_us = medians["BM_SessionRunIdentity"]
    c_us = medians["BM_TFSessionRunIdentity"]

    big = tessera.aligned_empty((16 << 20,), np.float32)  # 64 MiB
    big[:] = 1
    out = session.run(y, {x: big})
    zero_copy = out.ctypes.data == big.ctypes.data
    del out
    feed_fetch_s = best_of(lambda: session.run(y, {x: big}), 20, repeat=5)
    target = np.empty_like(big)
    copy_s = best_of(lambda: np.copyto(target, big), 5, repeat=5)
    gigabytes = big.nbytes / 1e9

    print(f"CPU: {cpu_model()}")
    print(f"1-node Identity, 1-float feed and fetch:")
    print(f"  C++ Session::Run              {cpp_us:8.2f} us")
    print(f"  C API TF_SessionRun           {c_us:8.2f} us  ({c_us / cpp_us:.2f}x)")
    print(f"  Python session.run            {python_us:8.2f} us  (+{python_us - cpp_us:.2f} us)")
    print(f"  Python make_callable          {callable_us:8.2f} us  (+{callable_us - cpp_us:.2f} us)")
    print(f"64 MiB float32 feed and fetch through Identity (zero copy: {zero_copy}):")
    print(f"  session.run                   {feed_fetch_s * 1e6:8.1f} us  "
          f"({gigabytes / feed_fetch_s:,.0f} GB/s)")
    print(f"  numpy copy of 64 MiB          {copy_s * 1e6:8.1f} us  "
          f"({gigabytes / copy_s:,.1f} GB/s)")


if __name__ == "__main__":
    main()
