#!/usr/bin/python3
"""Writes GraphDefs in the exact text form TensorFlow 1.x emits for tf.while_loop and tf.cond
(Enter/Merge/Switch/Identity/NextIteration/Exit with TensorFlow's names, frame names and attrs;
constants inside a loop with a control input from the loop's pivot, inside a cond branch from
cond/switch_t or cond/switch_f; loop invariants through is_constant Enters; '_class' on Switch
nodes), the inputs they are fed and the outputs numpy says they must give, and manifest.json,
which lists every case. Needs only python3 and numpy (run it with /usr/bin/python3); writes next
to this file.

manifest.json: {"cases": [{"name", "graph", "kind", "cpu_devices", "testdev", "runs": [{"feeds":
{tensor: npy}, "fetches": {tensor: npy or null}}], "error": {"code", "node", "message"}}]}. kind is
"values" (every run gives its fetches), "error" (every run fails with that code, naming that
node), "endless" (the first run's loop never ends: only a deadline stops it; later runs give
their fetches) or "long" (values, but too long
to repeat in every configuration).
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

DT = {np.float32: "DT_FLOAT", np.int32: "DT_INT32", np.bool_: "DT_BOOL"}
F32, I32, BOOL = np.float32, np.int32, np.bool_
FRAME_SUFFIX = "/while_context"


# ---- TensorFlow's text form (as in tests/end_to_end/testdata/tf_frozen) ------------------------

def shape_text(shape, indent):
    pad = " " * indent
    if not shape:
        return pad + "tensor_shape {\n" + pad + "}\n"
    dims = "".join(f"{pad}  dim {{\n{pad}    size: {d}\n{pad}  }}\n" for d in shape)
    return f"{pad}tensor_shape {{\n{dims}{pad}}}\n"


def type_attr(dtype):
    return f"      type: {DT[dtype]}\n"


def bool_attr(v):
    return f"      b: {'true' if v else 'false'}\n"


def int_attr(v):
    return f"      i: {v}\n"


def str_attr(v):
    return f'      s: "{v}"\n'


def class_attr(name):
    return f'      list {{\n        s: "loc:@{name}"\n      }}\n'


def shape_attr(shape):
    if shape is None:
        return "      shape {\n        unknown_rank: true\n      }\n"
    dims = "".join(f"        dim {{\n          size: {d}\n        }}\n" for d in shape)
    return f"      shape {{\n{dims}      }}\n"


class Graph:
    def __init__(self, default_device=""):
        self.nodes = []
        self.default_device = default_device  # for nodes given no device

    def node(self, name, op, inputs=(), attrs=(), device=""):
        lines = [f'node {{\n  name: "{name}"\n  op: "{op}"\n']
        for i in inputs:
            lines.append(f'  input: "{i}"\n')
        device = device or self.default_device
        if device:
            lines.append(f'  device: "{device}"\n')
        # TensorFlow writes attrs sorted by key (protobuf map order in text format).
        for key, value in sorted(attrs):
            lines.append(f'  attr {{\n    key: "{key}"\n    value {{\n{value}    }}\n  }}\n')
        lines.append("}\n")
        self.nodes.append("".join(lines))
        return name

    def text(self):
        return "".join(self.nodes) + "versions {\n  producer: 27\n}\n"


def const(g, name, value, dtype, control=None, device=""):
    array = np.asarray(value, dtype=dtype)
    field = {F32: "float_val", I32: "int_val", BOOL: "bool_val"}[dtype]
    body = f"      tensor {{\n        dtype: {DT[dtype]}\n" + shape_text(list(array.shape), 8)
    for v in array.reshape(-1):
        if dtype == BOOL:
            text = "true" if v else "false"
        elif dtype == F32:
            text = repr(float(v))
        else:
            text = str(int(v))
        body += f"        {field}: {text}\n"
    body += "      }\n"
    inputs = [f"^{control}"] if control else []
    return g.node(name, "Const", inputs, [("dtype", type_attr(dtype)), ("value", body)], device)


def placeholder(g, name, dtype, shape):
    return g.node(name, "Placeholder", attrs=[("dtype", type_attr(dtype)), ("shape", shape_attr(shape))])


def binary(g, name, op, a, b, dtype, device=""):
    return g.node(name, op, [a, b], [("T", type_attr(dtype))], device)


def identity(g, name, x, dtype):
    return g.node(name, "Identity", [x], [("T", type_attr(dtype))])


def suffix(k):
    return "" if k == 0 else f"_{k}"


# ---- tf.while_loop -------------------------------------------------------------------------------

class WhileLoop:
    """Emits one tf.while_loop in TensorFlow's node order: Enter, Merge, the condition, LoopCond,
    Switch, Identity, the body, NextIteration, Exit. `prefix` is the loop's name scope ("while/" or
    "while/while/")."""

    def __init__(self, g, prefix, initial, dtypes, parallel_iterations=10):
        self.g, self.p, self.dtypes = g, prefix, dtypes
        self.frame = prefix.rstrip("/") + FRAME_SUFFIX
        self.parallel_iterations = parallel_iterations
        n = len(initial)
        self.enter = [self._enter(f"{prefix}Enter{suffix(k)}", initial[k], dtypes[k], False)
                      for k in range(n)]
        self.merge = [g.node(f"{prefix}Merge{suffix(k)}", "Merge",
                             [self.enter[k], f"{prefix}NextIteration{suffix(k)}"],
                             [("N", int_attr(2)), ("T", type_attr(dtypes[k]))]) for k in range(n)]
        self.pivot = None

    def _enter(self, name, value, dtype, is_constant):
        return self.g.node(name, "Enter", [value], [
            ("T", type_attr(dtype)), ("frame_name", str_attr(self.frame)),
            ("is_constant", bool_attr(is_constant)),
            ("parallel_iterations", int_attr(self.parallel_iterations))])

    def invariant(self, consumer, value, dtype):
        """The is_constant Enter TensorFlow adds when the body reads `value` from outside."""
        return self._enter(f"{self.p}{consumer}/Enter", value, dtype, True)

    def cond(self, pred):
        g, p, n = self.g, self.p, len(self.merge)
        g.node(f"{p}LoopCond", "LoopCond", [pred])
        self.switch = [g.node(f"{p}Switch{suffix(k)}", "Switch", [self.merge[k], f"{p}LoopCond"],
                              [("T", type_attr(self.dtypes[k])), ("_class", class_attr(self.merge[k]))])
                       for k in range(n)]
        self.identity = [identity(g, f"{p}Identity{suffix(k)}", f"{self.switch[k]}:1", self.dtypes[k])
                         for k in range(n)]
        self.pivot = self.identity[0]
        return self.identity

    def finish(self, results):
        g, p = self.g, self.p
        for k, r in enumerate(results):
            g.node(f"{p}NextIteration{suffix(k)}", "NextIteration", [r], [("T", type_attr(self.dtypes[k]))])
        return [g.node(f"{p}Exit{suffix(k)}", "Exit", [self.switch[k]], [("T", type_attr(self.dtypes[k]))])
                for k in range(len(results))]


# ---- tf.cond -------------------------------------------------------------------------------------

class Cond:
    """Emits one tf.cond: cond/Switch(pred, pred), switch_t, switch_f, pred_id; every value a branch
    reads from outside goes through its own Switch on pred_id, colocated with the value."""

    def __init__(self, g, prefix, pred):
        self.g, self.p = g, prefix
        g.node(f"{prefix}Switch", "Switch", [pred, pred], [("T", type_attr(BOOL))])
        self.switch_t = identity(g, f"{prefix}switch_t", f"{prefix}Switch:1", BOOL)
        self.switch_f = identity(g, f"{prefix}switch_f", f"{prefix}Switch", BOOL)
        self.pred_id = identity(g, f"{prefix}pred_id", pred, BOOL)

    def take(self, consumer, value, dtype, branch, k=0):
        name = f"{self.p}{consumer}/Switch{suffix(k)}"
        self.g.node(name, "Switch", [value, self.pred_id],
                    [("T", type_attr(dtype)), ("_class", class_attr(value.split(":")[0]))])
        return f"{name}:1" if branch else name

    def merge(self, false_value, true_value, dtype):
        return self.g.node(f"{self.p}Merge", "Merge", [false_value, true_value],
                           [("N", int_attr(2)), ("T", type_attr(dtype))])


# ---- the graphs ----------------------------------------------------------------------------------

CASES = []


def save(name, value):
    np.save(os.path.join(HERE, name), value)
    return name


def write_graph(name, g):
    with open(os.path.join(HERE, f"{name}.pbtxt"), "w") as f:
        f.write(g.text())
    return f"{name}.pbtxt"


def add_case(name, g, runs, kind="values", cpu_devices=1, testdev=False, error=None):
    """runs: [(feeds {tensor: array}, fetches {tensor: expected array})]."""
    case = {"name": name, "graph": write_graph(name, g), "kind": kind, "cpu_devices": cpu_devices,
            "testdev": testdev, "runs": []}
    for r, (feeds, fetches) in enumerate(runs):
        def file(role, tensor):
            return f"{name}_{r}_{role}_{tensor.replace('/', '_').replace(':', '_')}.npy"
        case["runs"].append({
            "feeds": {t: save(file("feed", t), np.asarray(v)) for t, v in feeds.items()},
            "fetches": {t: None if v is None else save(file("expected", t), np.asarray(v))
                        for t, v in fetches.items()}})
    if error:
        case["error"] = error
    CASES.append(case)


def counter_graph(limit, add_device="", dtype=I32, pred_always_true=False, less_device="",
                  all_device=""):
    """i = 0; while i < limit: i += 1 (the add, or the Less that decides, optionally pinned to another
    device). The endless
    variant (the condition a constant true) also computes add = x + 1 outside the loop, on the
    add's device, to show the session still works after a step was cancelled. `all_device` pins
    every node there (the whole loop, control flow included, on one device)."""
    g = Graph(all_device)
    if pred_always_true:
        placeholder(g, "x", F32, [2])
        const(g, "add/y", 1.0, F32, device=add_device)
        binary(g, "add", "AddV2", "x", "add/y", F32, add_device)
    const(g, "Const", 0, dtype)
    w = WhileLoop(g, "while/", ["Const"], [dtype])
    if pred_always_true:
        const(g, "while/Const", True, BOOL, control="while/Merge")
        w.cond("while/Const")
    else:
        const(g, "while/Less/y", limit, dtype, control="while/Merge")
        w.cond(binary(g, "while/Less", "Less", "while/Merge", "while/Less/y", dtype, less_device))
    const(g, "while/add/y", 1, dtype, control="while/Identity")
    add = binary(g, "while/add", "AddV2", "while/Identity", "while/add/y", dtype, add_device)
    w.finish([add])
    return g


def write_counters():
    add_case("counter", counter_graph(10), [({}, {"while/Exit": np.int32(10)})])
    add_case("counter_across_cpus", counter_graph(10, "/device:CPU:1"),
             [({}, {"while/Exit": np.int32(10)})], cpu_devices=2)
    # The whole loop on a device without host memory: the predicate Less computes in device memory
    # goes to LoopCond and Switch (host-memory inputs) through a same-device _Send/_HostRecv pair.
    add_case("counter_on_testdev", counter_graph(10, all_device="/device:TESTDEV:0"),
             [({}, {"while/Exit": np.int32(10)})], testdev=True)
    add_case("counter_condition_across_cpus", counter_graph(10, less_device="/device:CPU:1"),
             [({}, {"while/Exit": np.int32(10)})], cpu_devices=2)
    add_case("counting_to_a_million", counter_graph(1000000),
             [({}, {"while/Exit": np.int32(1000000)})], kind="long")
    add_case("counting_across_cpus_long", counter_graph(100000, "/device:CPU:1"),
             [({}, {"while/Exit": np.int32(100000)})], kind="long", cpu_devices=2)
    x = np.array([0.5, -3.0], dtype=F32)
    endless_runs = [({}, {"while/Exit": None}), ({"x": x}, {"add": x + np.float32(1)})]
    add_case("endless", counter_graph(0, dtype=F32, pred_always_true=True), endless_runs,
             kind="endless")
    add_case("endless_across_cpus",
             counter_graph(0, "/device:CPU:1", dtype=F32, pred_always_true=True), endless_runs,
             kind="endless", cpu_devices=2)
    add_case("endless_on_testdev",
             counter_graph(0, "/device:TESTDEV:0", dtype=F32, pred_always_true=True), endless_runs,
             kind="endless", testdev=True)


def write_accumulator():
    """(i, acc) = (0, 0.0); while i < 10: acc += x * float(i); i += 1, with x fed (invariant)."""
    g = Graph()
    placeholder(g, "x", F32, [])
    const(g, "Const", 0, I32)
    const(g, "Const_1", 0.0, F32)
    w = WhileLoop(g, "while/", ["Const", "Const_1"], [I32, F32])
    const(g, "while/Less/y", 10, I32, control="while/Merge")
    w.cond(binary(g, "while/Less", "Less", "while/Merge", "while/Less/y", I32))
    i, acc = w.identity
    g.node("while/Cast", "Cast", [i], [("DstT", type_attr(F32)), ("SrcT", type_attr(I32)),
                                       ("Truncate", bool_attr(False))])
    x = w.invariant("mul", "x", F32)
    mul = binary(g, "while/mul", "Mul", x, "while/Cast", F32)
    acc_next = binary(g, "while/add", "AddV2", acc, mul, F32)
    const(g, "while/add_1/y", 1, I32, control="while/Identity")
    i_next = binary(g, "while/add_1", "AddV2", i, "while/add_1/y", I32)
    w.finish([i_next, acc_next])
    runs = []
    for x_value in (np.float32(1.5), np.float32(-0.25)):
        acc_value = np.float32(0)
        for k in range(10):
            acc_value = np.float32(acc_value + np.float32(x_value * np.float32(k)))
        runs.append(({"x": x_value}, {"while/Exit": np.int32(10), "while/Exit_1": acc_value}))
    add_case("accumulator", g, runs)


def write_growing_shape():
    """(i, v) = (0, [1.0]); while i < 4: v = concat([v, v * 2]); i += 1 -> v has 16 elements."""
    g = Graph()
    const(g, "Const", 0, I32)
    const(g, "Const_1", [1.0], F32)
    w = WhileLoop(g, "while/", ["Const", "Const_1"], [I32, F32])
    const(g, "while/Less/y", 4, I32, control="while/Merge")
    w.cond(binary(g, "while/Less", "Less", "while/Merge", "while/Less/y", I32))
    i, v = w.identity
    const(g, "while/mul/y", 2.0, F32, control="while/Identity")
    mul = binary(g, "while/mul", "Mul", v, "while/mul/y", F32)
    const(g, "while/concat/axis", 0, I32, control="while/Identity")
    concat = g.node("while/concat", "ConcatV2", [v, mul, "while/concat/axis"],
                    [("N", int_attr(2)), ("T", type_attr(F32)), ("Tidx", type_attr(I32))])
    const(g, "while/add/y", 1, I32, control="while/Identity")
    w.finish([binary(g, "while/add", "AddV2", i, "while/add/y", I32), concat])
    value = np.array([1.0], dtype=F32)
    for _ in range(4):
        value = np.concatenate([value, value * np.float32(2)])
    add_case("growing_shape", g, [({}, {"while/Exit": np.int32(4), "while/Exit_1": value})])


def nested_graph(inner_device=""):
    """(i, total) = (1, 0); while i < 4: (j, acc) = (1, total); while j < 5: acc += i * j; j += 1;
    total = acc; i += 1. The inner body's Mul and AddV2 optionally on another device."""
    g = Graph()
    const(g, "Const", 1, I32)
    const(g, "Const_1", 0, I32)
    outer = WhileLoop(g, "while/", ["Const", "Const_1"], [I32, I32])
    const(g, "while/Less/y", 4, I32, control="while/Merge")
    outer.cond(binary(g, "while/Less", "Less", "while/Merge", "while/Less/y", I32))
    i, total = outer.identity
    const(g, "while/Const", 1, I32, control="while/Identity")
    inner = WhileLoop(g, "while/while/", ["while/Const", total], [I32, I32])
    const(g, "while/while/Less/y", 5, I32, control="while/while/Merge")
    inner.cond(binary(g, "while/while/Less", "Less", "while/while/Merge", "while/while/Less/y", I32))
    j, acc = inner.identity
    i_inside = inner.invariant("mul", i, I32)
    mul = binary(g, "while/while/mul", "Mul", i_inside, j, I32, inner_device)
    acc_next = binary(g, "while/while/add", "AddV2", acc, mul, I32, inner_device)
    const(g, "while/while/add_1/y", 1, I32, control="while/while/Identity")
    j_next = binary(g, "while/while/add_1", "AddV2", j, "while/while/add_1/y", I32)
    _, acc_exit = inner.finish([j_next, acc_next])
    const(g, "while/add/y", 1, I32, control="while/Identity")
    i_next = binary(g, "while/add", "AddV2", i, "while/add/y", I32)
    outer.finish([i_next, acc_exit])
    expected = sum(a * b for a in range(1, 4) for b in range(1, 5))
    return g, [({}, {"while/Exit": np.int32(4), "while/Exit_1": np.int32(expected)})]


def write_nested():
    add_case("nested", *nested_graph())
    add_case("nested_across_cpus", *nested_graph("/device:CPU:1"), cpu_devices=2)
    add_case("nested_on_testdev", *nested_graph("/device:TESTDEV:0"), testdev=True)


def cond_in_loop_graph(true_device="", false_device=""):
    """(i, acc) = (0, 0); while i < 8: i += 1; acc = cond(i < 4, acc + i, acc - 1), each branch
    optionally on another device."""
    g = Graph()
    const(g, "Const", 0, I32)
    const(g, "Const_1", 0, I32)
    w = WhileLoop(g, "while/", ["Const", "Const_1"], [I32, I32])
    const(g, "while/Less/y", 8, I32, control="while/Merge")
    w.cond(binary(g, "while/Less", "Less", "while/Merge", "while/Less/y", I32))
    i, acc = w.identity
    const(g, "while/add/y", 1, I32, control="while/Identity")
    i_next = binary(g, "while/add", "AddV2", i, "while/add/y", I32)
    const(g, "while/Less_1/y", 4, I32, control="while/Identity")
    pred = binary(g, "while/Less_1", "Less", i_next, "while/Less_1/y", I32)
    c = Cond(g, "while/cond/", pred)
    taken = binary(g, "while/cond/add", "AddV2", c.take("add", acc, I32, True),
                   c.take("add", i_next, I32, True, k=1), I32, true_device)
    const(g, "while/cond/sub/y", 1, I32, control=c.switch_f)
    not_taken = binary(g, "while/cond/sub", "Sub", c.take("sub", acc, I32, False),
                       "while/cond/sub/y", I32, false_device)
    w.finish([i_next, c.merge(not_taken, taken, I32)])
    acc_value = 0
    for k in range(1, 9):
        acc_value = acc_value + k if k < 4 else acc_value - 1
    return g, [({}, {"while/Exit": np.int32(8), "while/Exit_1": np.int32(acc_value)})]


def write_cond_in_loop():
    add_case("cond_in_loop", *cond_in_loop_graph())
    add_case("cond_in_loop_across_devices", *cond_in_loop_graph("/device:CPU:1", "/device:TESTDEV:0"),
             cpu_devices=2, testdev=True)


def cond_graph(true_device="", false_device=""):
    """y = cond(pred, x + 10, x * 2) with pred and x fed, each branch optionally on a device."""
    g = Graph()
    placeholder(g, "pred", BOOL, [])
    placeholder(g, "x", F32, [3])
    c = Cond(g, "cond/", "pred")
    const(g, "cond/add/y", 10.0, F32, control=c.switch_t, device=true_device)
    binary(g, "cond/add", "AddV2", c.take("add", "x", F32, True), "cond/add/y", F32, true_device)
    const(g, "cond/mul/y", 2.0, F32, control=c.switch_f, device=false_device)
    binary(g, "cond/mul", "Mul", c.take("mul", "x", F32, False), "cond/mul/y", F32, false_device)
    c.merge("cond/mul", "cond/add", F32)
    x = np.array([1.5, -2.0, 0.25], dtype=F32)
    runs = [({"pred": np.bool_(True), "x": x}, {"cond/Merge": x + np.float32(10), "cond/Merge:1": np.int32(1)}),
            ({"pred": np.bool_(False), "x": x}, {"cond/Merge": x * np.float32(2), "cond/Merge:1": np.int32(0)})]
    return g, runs


def write_conds():
    add_case("cond", *cond_graph())
    add_case("cond_across_devices", *cond_graph("/device:CPU:1", "/device:TESTDEV:0"),
             cpu_devices=2, testdev=True)


def write_testdev_loop():
    """(i, acc) = (0.0, 1.0); while i < 10: i += 1; acc *= 2, the body on TESTDEV."""
    g = Graph()
    const(g, "Const", 0.0, F32)
    const(g, "Const_1", 1.0, F32)
    w = WhileLoop(g, "while/", ["Const", "Const_1"], [F32, F32])
    const(g, "while/Less/y", 10.0, F32, control="while/Merge")
    w.cond(binary(g, "while/Less", "Less", "while/Merge", "while/Less/y", F32))
    i, acc = w.identity
    dev = "/device:TESTDEV:0"
    const(g, "while/add/y", 1.0, F32, control="while/Identity", device=dev)
    i_next = binary(g, "while/add", "AddV2", i, "while/add/y", F32, dev)
    const(g, "while/mul/y", 2.0, F32, control="while/Identity", device=dev)
    acc_next = binary(g, "while/mul", "Mul", acc, "while/mul/y", F32, dev)
    w.finish([i_next, acc_next])
    add_case("loop_body_on_testdev", g,
             [({}, {"while/Exit": np.float32(10), "while/Exit_1": np.float32(1024)})], testdev=True)


def failing_iteration_graph(reshape_device=""):
    """(i, v) = (0, [1.0]); while i < 10: w = concat([v, [1.0]]); v = reshape(w, min(shape(w), 6)):
    iteration 5 reshapes 7 elements into [6] and fails (the Reshape optionally on another device)."""
    g = Graph()
    const(g, "Const", 0, I32)
    const(g, "Const_1", [1.0], F32)
    w = WhileLoop(g, "while/", ["Const", "Const_1"], [I32, F32])
    const(g, "while/Less/y", 10, I32, control="while/Merge")
    w.cond(binary(g, "while/Less", "Less", "while/Merge", "while/Less/y", I32))
    i, v = w.identity
    const(g, "while/concat/values_1", [1.0], F32, control="while/Identity")
    const(g, "while/concat/axis", 0, I32, control="while/Identity")
    concat = g.node("while/concat", "ConcatV2", [v, "while/concat/values_1", "while/concat/axis"],
                    [("N", int_attr(2)), ("T", type_attr(F32)), ("Tidx", type_attr(I32))])
    g.node("while/Shape", "Shape", [concat], [("T", type_attr(F32)), ("out_type", type_attr(I32))])
    const(g, "while/Minimum/y", 6, I32, control="while/Identity")
    binary(g, "while/Minimum", "Minimum", "while/Shape", "while/Minimum/y", I32)
    reshape = g.node("while/Reshape", "Reshape", [concat, "while/Minimum"],
                     [("T", type_attr(F32)), ("Tshape", type_attr(I32))], reshape_device)
    const(g, "while/add/y", 1, I32, control="while/Identity")
    w.finish([binary(g, "while/add", "AddV2", i, "while/add/y", I32), reshape])
    return g


def write_failing_iteration():
    error = {"code": "INVALID_ARGUMENT", "node": "while/Reshape", "message": "tensor with 7 values"}
    add_case("failing_iteration", failing_iteration_graph(), [({}, {"while/Exit_1": None})],
             kind="error", error=error)
    add_case("failing_iteration_across_cpus", failing_iteration_graph("/device:CPU:1"),
             [({}, {"while/Exit_1": None})], kind="error", cpu_devices=2, error=error)


if __name__ == "__main__":
    write_counters()
    write_accumulator()
    write_growing_shape()
    write_nested()
    write_cond_in_loop()
    write_conds()
    write_testdev_loop()
    write_failing_iteration()
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump({"cases": CASES}, f, indent=1, sort_keys=True)
        f.write("\n")
