#!/usr/bin/python3
"""Checks that no #include runs back up Tessera's layers.

Top level (each may include the ones before it, and itself):
    plugin_api < base < registry < host < kit
and inside host/, the components in the order of host/README.md. A file may include its own
component and any component below it. A test (*_test.cc) may also run what it tests through a
session: it may include host/session/, host/session_factory/ and host/testing/. The executor's
private headers (its node table, step loop and propagators) are included from host/executor/ only.
Prints every include that runs up a layer, as FILE:LINE: 'INCLUDE' (FROM may not include TO),
and exits 1 when there is one.

Usage: check_layers.py [REPOSITORY_ROOT]
"""
import os
import re
import sys

TOP = ["plugin_api", "base", "registry", "host", "kit"]
HOST = ["runtime", "framework", "checkpoint", "ops", "graph", "client", "rendezvous", "abi",
        "kernels", "executor", "passes", "partition", "placer", "session", "distributed",
        "session_factory", "training", "testing", "tools"]
TEST_MAY_REACH = {"session", "session_factory", "testing"}
PRIVATE = {
    "host/executor/" + name: "host/executor/"
    for name in ("node_table.h", "step_state.h", "counter_propagator.h", "frame_propagator.h",
                 "executor_internal.h")
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    """(top index, host index) of a repository path, or None when it is outside the layers."""
    parts = path.split("/")
    if parts[0] == "tessera" and len(parts) > 1 and parts[1] == "plugin_api":
        return (TOP.index("plugin_api"), -1)  # the ABI's installed include path
    if parts[0] not in TOP:
        return None
    top = TOP.index(parts[0])
    if parts[0] != "host":
        return (top, -1)
    if len(parts) < 3 or parts[1] not in HOST:
        return None
    return (top, HOST.index(parts[1]))


def name_of(layer):
    top, host = layer
    return "host/" + HOST[host] if host >= 0 else TOP[top]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    root = os.path.abspath(root)
    problems = []
    checked = 0
    for top in TOP:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in ("testdata", "corpus"))
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".c")):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                src = layer_of(path)
                if src is None:
                    continue
                checked += 1
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        included = match.group(1)
                        owner = PRIVATE.get(included)
                        if owner is not None and not path.startswith(owner):
                            problems.append("%s:%d: '%s' (private to %s)" % (
                                path, number, included, owner))
                            continue
                        dst = layer_of(included)
                        if dst is None or dst <= src:
                            continue
                        if name.endswith("_test.cc") and dst[1] >= 0 and \
                                HOST[dst[1]] in TEST_MAY_REACH:
                            continue
                        problems.append("%s:%d: '%s' (%s may not include %s)" % (
                            path, number, match.group(1), name_of(src), name_of(dst)))
    for problem in problems:
        print(problem)
    if checked == 0:
        print("check_layers: no source files under %s" % root)
        return 1
    print("check_layers: %d files, %d includes that break the layering" % (checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
