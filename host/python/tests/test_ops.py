"""The op functions generated from the op registry (tessera.ops, tessera.raw_ops)."""
import inspect

import numpy as np
import pytest

import tessera
from tessera import ops


def test_names_follow_tensorflow():
    assert ops.snake_case("MatMul") == "mat_mul"
    assert ops.snake_case("Conv2D") == "conv2d"
    assert ops.snake_case("AddV2") == "add_v2"
    assert ops.snake_case("BatchMatMulV2") == "batch_mat_mul_v2"
    assert ops.snake_case("Conv3DBackpropInputV2") == "conv3d_backprop_input_v2"
    assert ops.snake_case("LRN") == "lrn"
    assert "mat_mul" in dir(ops) and "MatMul" in dir(tessera.raw_ops)


def test_signatures_have_inputs_then_attrs_then_name():
    parameters = list(inspect.signature(ops.mat_mul).parameters)
    assert parameters == ["a", "b", "transpose_a", "transpose_b", "grad_a", "grad_b", "name"] or \
        parameters[:4] == ["a", "b", "transpose_a", "transpose_b"]
    assert parameters[-1] == "name"
    conv = inspect.signature(ops.conv2d)
    assert conv.parameters["strides"].default is inspect.Parameter.empty  # required attr
    assert "T" not in conv.parameters  # inferred from the inputs
    raw = inspect.signature(tessera.raw_ops.MatMul)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in raw.parameters.values())


def test_outputs_lists_and_operations():
    a = tessera.constant([3, 1, 3, 2], name="a")
    y, idx = ops.unique(a)  # two outputs: a tuple
    parts = ops.split(tessera.constant(0), tessera.constant(np.arange(6, dtype=np.float32)),
                      num_split=3)
    total = ops.add_n([tessera.constant(1.0), tessera.constant(2.0), 3.0])
    nothing = ops.no_op(name="nothing")
    assert isinstance(nothing, tessera.Operation) and nothing.name == "nothing"
    assert isinstance(parts, list) and len(parts) == 3
    with tessera.Session() as session:
        values = session.run({"y": y, "idx": idx, "parts": parts, "total": total})
    np.testing.assert_array_equal(values["y"], [3, 1, 2])
    np.testing.assert_array_equal(values["idx"], [0, 1, 0, 2])
    np.testing.assert_array_equal(values["parts"][2], [4, 5])
    assert values["total"] == 6
    assert tessera.raw_ops.AddV2(x=total, y=1.0, name="plus").name == "plus:0"


def test_names_are_unique_and_scoped():
    graph = tessera.get_default_graph()
    a = tessera.constant(1.0)
    b = tessera.constant(2.0)
    assert (a.name, b.name) == ("Const:0", "Const_1:0")
    with graph.name_scope("layer"):
        c = ops.relu(a)
    with graph.name_scope("layer"):
        d = ops.relu(a)
    assert c.name == "layer/Relu:0" and d.name == "layer_1/Relu:0"


def test_errors():
    x = ops.placeholder(dtype=tessera.float32, name="x")
    with pytest.raises(AttributeError, match="no_such_op"):
        ops.no_such_op(x)
    with pytest.raises(TypeError, match="strides"):
        ops.conv2d(x, x, padding="SAME")  # a required attr missing
    graph = tessera.get_default_graph()
    count = len(graph.get_operations())
    with pytest.raises(TypeError, match="has no attr 'bogus'"):
        tessera.framework.create_op("Relu", [x], {"bogus": 1})
    with pytest.raises(TypeError):
        tessera.framework.create_op("Conv2D", [x, x], {"strides": "not a list", "padding": "SAME"})
    assert len(graph.get_operations()) == count  # failed ops add nothing
    with pytest.raises(tessera.errors.InvalidArgumentError, match="padding"):
        ops.conv2d(x, x, strides=[1, 1, 1, 1], padding="DIAGONAL")
    with pytest.raises(TypeError, match="has type int32, expected float32"):
        ops.mat_mul(x, tessera.constant([1, 2], dtype=tessera.int32))
    with pytest.raises(tessera.errors.InvalidArgumentError, match="rank"):
        ops.mat_mul(tessera.constant([1.0, 2.0]), tessera.constant([1.0]))
    with pytest.raises(TypeError, match="has type"):
        tessera.convert_to_tensor(x, dtype=tessera.int32)
