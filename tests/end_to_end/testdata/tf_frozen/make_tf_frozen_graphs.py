#!/usr/bin/python3
"""Writes GraphDefs in the exact text form TensorFlow 1.x emits for frozen graphs
(tf.graph_util.convert_variables_to_constants on tf.layers models: Const weights with packed
tensor_content, '/read' Identity nodes with '_class' colocation attrs, TensorFlow's attr sets and
'versions { producer }'), together with input batches and the expected outputs computed with
numpy. Needs only python3 and numpy (Debian: python3-numpy; run it with /usr/bin/python3). Writes next to this file.

  mlp.pbtxt        tf.layers.dense x2 + softmax classifier (4 -> 8 relu -> 3)
  ops_mix.pbtxt    every other op of the supported set, with broadcasting
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(20261121)

DT = {np.float32: "DT_FLOAT", np.int32: "DT_INT32", np.int64: "DT_INT64", np.float64: "DT_DOUBLE",
      np.bool_: "DT_BOOL"}


def escape(data):
    """protobuf text-format escaping of bytes, as TensorFlow writes tensor_content."""
    out = []
    for b in data:
        c = chr(b)
        if c == '"':
            out.append('\\"')
        elif c == "'":
            out.append("\\'")
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return "".join(out)


def shape_text(shape, indent):
    pad = " " * indent
    if not shape:
        return pad + "tensor_shape {\n" + pad + "}\n"
    dims = "".join(f"{pad}  dim {{\n{pad}    size: {d}\n{pad}  }}\n" for d in shape)
    return f"{pad}tensor_shape {{\n{dims}{pad}}}\n"


class Graph:
    def __init__(self):
        self.nodes = []

    def node(self, name, op, inputs=(), attrs=()):
        lines = [f'node {{\n  name: "{name}"\n  op: "{op}"\n']
        for i in inputs:
            lines.append(f'  input: "{i}"\n')
        for key, value in attrs:
            lines.append(f'  attr {{\n    key: "{key}"\n    value {{\n{value}    }}\n  }}\n')
        lines.append("}\n")
        self.nodes.append("".join(lines))

    def text(self):
        return "".join(self.nodes) + "versions {\n  producer: 27\n}\n"


def type_attr(dtype):
    return f"      type: {DT[dtype]}\n"


def bool_attr(v):
    return f"      b: {'true' if v else 'false'}\n"


def int_attr(v):
    return f"      i: {v}\n"


def str_attr(v):
    return f'      s: "{v}"\n'


def class_attr(group):
    return f'      list {{\n        s: "loc:@{group}"\n      }}\n'


def shape_attr(shape):
    dims = "".join(f"          dim {{\n            size: {d}\n          }}\n" for d in shape)
    return f"      shape {{\n{dims}      }}\n"


def const(g, name, array, use_content=True):
    array = np.asarray(array)
    dtype = array.dtype.type
    body = f"      tensor {{\n        dtype: {DT[dtype]}\n" + shape_text(list(array.shape), 8)
    if use_content and array.size > 1:
        body += f'        tensor_content: "{escape(array.astype(array.dtype.newbyteorder("<")).tobytes())}"\n'
    else:
        field = {np.float32: "float_val", np.int32: "int_val", np.int64: "int64_val",
                 np.float64: "double_val", np.bool_: "bool_val"}[dtype]
        flat = array.reshape(-1)
        value = flat[0] if flat.size else 0
        if dtype == np.bool_:
            value = "true" if value else "false"
        elif dtype in (np.float32, np.float64):
            value = repr(float(value))
        body += f"        {field}: {value}\n"
    body += "      }\n"
    g.node(name, "Const", attrs=[("dtype", type_attr(dtype)), ("value", body)])


def variable(g, name, array):
    const(g, name, array)
    g.node(f"{name}/read", "Identity", [name],
           [("T", type_attr(np.float32)), ("_class", class_attr(name))])


def placeholder(g, name, dtype, shape):
    g.node(name, "Placeholder", attrs=[("dtype", type_attr(dtype)), ("shape", shape_attr(shape))])


def relu(x):
    return np.maximum(x, 0)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def write_mlp():
    g = Graph()
    placeholder(g, "input", np.float32, [-1, 4])
    w0 = rng.uniform(-1, 1, (4, 8)).astype(np.float32)
    b0 = rng.uniform(-0.5, 0.5, (8,)).astype(np.float32)
    w1 = rng.uniform(-1, 1, (8, 3)).astype(np.float32)
    b1 = rng.uniform(-0.5, 0.5, (3,)).astype(np.float32)
    variable(g, "dense/kernel", w0)
    variable(g, "dense/bias", b0)
    t = type_attr(np.float32)
    g.node("dense/MatMul", "MatMul", ["input", "dense/kernel/read"],
           [("T", t), ("transpose_a", bool_attr(False)), ("transpose_b", bool_attr(False))])
    g.node("dense/BiasAdd", "BiasAdd", ["dense/MatMul", "dense/bias/read"],
           [("T", t), ("data_format", str_attr("NHWC"))])
    g.node("dense/Relu", "Relu", ["dense/BiasAdd"], [("T", t)])
    variable(g, "dense_1/kernel", w1)
    variable(g, "dense_1/bias", b1)
    g.node("dense_1/MatMul", "MatMul", ["dense/Relu", "dense_1/kernel/read"],
           [("T", t), ("transpose_a", bool_attr(False)), ("transpose_b", bool_attr(False))])
    g.node("dense_1/BiasAdd", "BiasAdd", ["dense_1/MatMul", "dense_1/bias/read"],
           [("T", t), ("data_format", str_attr("NHWC"))])
    g.node("probabilities", "Softmax", ["dense_1/BiasAdd"], [("T", t)])
    x = rng.uniform(-2, 2, (5, 4)).astype(np.float32)
    logits = relu(x @ w0 + b0) @ w1 + b1
    with open(os.path.join(HERE, "mlp.pbtxt"), "w") as f:
        f.write(g.text())
    np.save(os.path.join(HERE, "mlp_input.npy"), x)
    np.save(os.path.join(HERE, "mlp_expected_probabilities.npy"), softmax(logits).astype(np.float32))


def write_ops_mix():
    g = Graph()
    t = type_attr(np.float32)
    placeholder(g, "a", np.float32, [2, 3])
    placeholder(g, "b", np.float32, [3])
    a = rng.uniform(0.5, 2, (2, 3)).astype(np.float32)
    b = rng.uniform(0.5, 2, (3,)).astype(np.float32)
    expected = {}

    def binary(name, op, x, y):
        g.node(name, op, [x, y], [("T", t)])

    binary("add", "Add", "a", "b"); expected["add"] = a + b
    binary("addv2", "AddV2", "a", "b"); expected["addv2"] = a + b
    binary("sub", "Sub", "a", "b"); expected["sub"] = a - b
    binary("mul", "Mul", "a", "b"); expected["mul"] = a * b
    binary("div", "RealDiv", "a", "b"); expected["div"] = a / b
    binary("max", "Maximum", "a", "b"); expected["max"] = np.maximum(a, b)
    binary("min", "Minimum", "a", "b"); expected["min"] = np.minimum(a, b)
    for name, op, fn in [("neg", "Neg", np.negative), ("abs", "Abs", np.abs), ("exp", "Exp", np.exp),
                         ("log", "Log", np.log), ("sqrt", "Sqrt", np.sqrt),
                         ("rsqrt", "Rsqrt", lambda v: 1 / np.sqrt(v)), ("square", "Square", np.square),
                         ("tanh", "Tanh", np.tanh), ("sigmoid", "Sigmoid", lambda v: 1 / (1 + np.exp(-v))),
                         ("relu6", "Relu6", lambda v: np.minimum(np.maximum(v, 0), 6))]:
        g.node(name, op, ["sub"], [("T", t)])
        expected[name] = fn(a - b) if op not in ("Log", "Sqrt", "Rsqrt") else None
    # Log, Sqrt, Rsqrt on positive values.
    for name, op, fn in [("log", "Log", np.log), ("sqrt", "Sqrt", np.sqrt),
                         ("rsqrt", "Rsqrt", lambda v: 1 / np.sqrt(v))]:
        g.nodes = [n for n in g.nodes if f'name: "{name}"\n' not in n]
        g.node(name, op, ["mul"], [("T", t)])
        expected[name] = fn(a * b)
    const(g, "axes", np.array([1], dtype=np.int32))
    g.node("sum", "Sum", ["mul", "axes"],
           [("T", t), ("Tidx", type_attr(np.int32)), ("keep_dims", bool_attr(False))])
    expected["sum"] = (a * b).sum(axis=1)
    const(g, "axis0", np.array(0, dtype=np.int32))
    g.node("mean", "Mean", ["mul", "axis0"],
           [("T", t), ("Tidx", type_attr(np.int32)), ("keep_dims", bool_attr(True))])
    expected["mean"] = (a * b).mean(axis=0, keepdims=True)
    g.node("maxr", "Max", ["mul", "axes"],
           [("T", t), ("Tidx", type_attr(np.int32)), ("keep_dims", bool_attr(True))])
    expected["maxr"] = (a * b).max(axis=1, keepdims=True)
    const(g, "newshape", np.array([3, -1], dtype=np.int32))
    g.node("reshape", "Reshape", ["mul", "newshape"], [("T", t), ("Tshape", type_attr(np.int32))])
    expected["reshape"] = (a * b).reshape(3, -1)
    g.node("shape", "Shape", ["reshape"], [("T", t), ("out_type", type_attr(np.int32))])
    expected["shape"] = np.array([3, 2], dtype=np.int32)
    const(g, "dim", np.array(-1, dtype=np.int32))
    g.node("expand", "ExpandDims", ["b", "dim"], [("T", t), ("Tdim", type_attr(np.int32))])
    expected["expand"] = b[:, None]
    g.node("squeeze", "Squeeze", ["expand"], [("T", t), ("squeeze_dims", "      list {\n        i: 1\n      }\n")])
    expected["squeeze"] = b
    g.node("concat", "ConcatV2", ["a", "mul", "axis0"],
           [("N", int_attr(2)), ("T", t), ("Tidx", type_attr(np.int32))])
    expected["concat"] = np.concatenate([a, a * b], axis=0)
    g.node("pack", "Pack", ["b", "b"], [("N", int_attr(2)), ("T", t), ("axis", int_attr(1))])
    expected["pack"] = np.stack([b, b], axis=1)
    g.node("cast", "Cast", ["mul"],
           [("SrcT", t), ("DstT", type_attr(np.int32)), ("Truncate", bool_attr(False))])
    expected["cast"] = (a * b).astype(np.int32)
    const(g, "fill_dims", np.array([2, 2], dtype=np.int32))
    const(g, "fill_value", np.array(1.5, dtype=np.float32))
    g.node("fill", "Fill", ["fill_dims", "fill_value"], [("T", t), ("index_type", type_attr(np.int32))])
    expected["fill"] = np.full((2, 2), 1.5, dtype=np.float32)
    g.node("zeros", "ZerosLike", ["a"], [("T", t)])
    expected["zeros"] = np.zeros_like(a)
    g.node("ident", "Identity", ["a"], [("T", t)])
    expected["ident"] = a
    g.node("pwd", "PlaceholderWithDefault", ["b"], [("dtype", t), ("shape", shape_attr([3]))])
    expected["pwd"] = b
    g.node("bias", "BiasAdd", ["a", "b"], [("T", t), ("data_format", str_attr("NHWC"))])
    expected["bias"] = a + b
    g.node("mm", "MatMul", ["a", "a"],
           [("T", t), ("transpose_a", bool_attr(False)), ("transpose_b", bool_attr(True))])
    expected["mm"] = a @ a.T
    g.node("relu", "Relu", ["sub"], [("T", t)])
    expected["relu"] = relu(a - b)
    g.node("softmax", "Softmax", ["a"], [("T", t)])
    expected["softmax"] = softmax(a)
    g.node("noop", "NoOp", ["^softmax"])

    with open(os.path.join(HERE, "ops_mix.pbtxt"), "w") as f:
        f.write(g.text())
    np.save(os.path.join(HERE, "ops_mix_a.npy"), a)
    np.save(os.path.join(HERE, "ops_mix_b.npy"), b)
    names = sorted(expected)
    with open(os.path.join(HERE, "ops_mix_fetches.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    for name in names:
        value = np.asarray(expected[name])
        if value.dtype == np.float64:
            value = value.astype(np.float32)
        np.save(os.path.join(HERE, f"ops_mix_expected_{name}.npy"), value)


if __name__ == "__main__":
    write_mlp()
    write_ops_mix()
