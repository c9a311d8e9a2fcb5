"""tessera.Session: GraphDef files, feeds and fetches in TensorFlow's structures, numpy in and
out without copies, strings, devices, plugins, metadata and errors."""
import collections
import os

import numpy as np
import pytest

import tessera
from tessera import ops

POINTS = [[0.2, 0.3], [1.2, -0.5], [-2.5, 1.0]]


def mlp_path(source_dir):
    return os.path.join(source_dir, "examples", "mlp", "mlp.pb")


def small_graph():
    graph = tessera.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=tessera.float32, shape=[None, 2], name="x")
        w = tessera.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="w")
        y = ops.mat_mul(x, w, name="y")
    return graph, x, y


def test_runs_a_graphdef_file(source_dir):
    with tessera.Session(mlp_path(source_dir)) as session:
        classes = session.run("predicted_class:0", {"x:0": POINTS})
        probabilities = session.run("probabilities:0", {"x:0": np.array(POINTS, np.float32)})
    np.testing.assert_array_equal(classes, [0, 1, 2])
    assert classes.dtype == np.int64
    np.testing.assert_allclose(probabilities.sum(axis=1), [1, 1, 1], rtol=1e-5)


def test_fetch_structures():
    graph, x, y = small_graph()
    Pair = collections.namedtuple("Pair", ["first", "second"])
    with tessera.Session(graph) as session:
        feed = {x: [[1, 1]]}
        expected = np.array([[5, 7, 9]], np.float32)
        np.testing.assert_array_equal(session.run(y, feed), expected)
        single_list = session.run([y], feed)
        assert isinstance(single_list, list) and len(single_list) == 1
        nested = session.run({"a": y, "b": (y, [y, "w:0"]), "c": Pair(y, x)}, feed)
        np.testing.assert_array_equal(nested["a"], expected)
        assert isinstance(nested["b"], tuple) and isinstance(nested["b"][1], list)
        np.testing.assert_array_equal(nested["b"][1][1], [[1, 2, 3], [4, 5, 6]])
        assert isinstance(nested["c"], Pair)
        np.testing.assert_array_equal(nested["c"].second, [[1, 1]])  # a fed tensor fetched
        # An operation is run, not fetched: its value is None.
        assert session.run([y.op, y], feed)[0] is None
        assert session.run("y", feed) is None


def test_feeds_by_name_list_and_other_dtypes():
    graph, x, y = small_graph()
    with tessera.Session(graph) as session:
        by_name = session.run("y:0", {"x": [[1, 0]]})
        by_array = session.run(y, {"x:0": np.array([[1, 0]], dtype=np.float64)})
    np.testing.assert_array_equal(by_name, [[1, 2, 3]])
    np.testing.assert_array_equal(by_array, by_name)


def test_zero_copy_feed_and_fetch():
    graph = tessera.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=tessera.float32, name="x")
        y = ops.identity(x, name="y")
    value = tessera.aligned_empty((1 << 20,), np.float32)
    value[:] = np.arange(value.size, dtype=np.float32)
    with tessera.Session(graph) as session:
        out = session.run(y, {x: value})
        assert out.ctypes.data == value.ctypes.data  # the fed buffer, handed back
        fetched = session.run(ops.add_v2(x, 1.0), {x: value})
        again = session.run(y, {x: fetched})  # a fetched array is aligned: lent again
        assert again.ctypes.data == fetched.ctypes.data
        del out, again
    np.testing.assert_array_equal(fetched[:3], [1, 2, 3])
    # The memory outlives the session: the arrays own their tensors.
    fetched[0] = 7
    assert fetched[0] == 7


def test_strings():
    graph = tessera.Graph()
    with graph.as_default():
        s = ops.placeholder(dtype=tessera.string, name="s")
        t = ops.identity(s)
        c = tessera.constant([b"a", b"long string of more than twenty-two bytes"])
    with tessera.Session(graph) as session:
        out = session.run(t, {s: ["x", "y\x00z"]})
        assert list(out) == [b"x", b"y\x00z"]
        assert list(session.run(c)) == [b"a", b"long string of more than twenty-two bytes"]


def test_devices_config_and_close():
    graph, x, y = small_graph()
    session = tessera.Session(graph, config={"intra_op_parallelism_threads": 1,
                                             "inter_op_parallelism_threads": 1,
                                             "allow_soft_placement": True})
    devices = session.list_devices()
    assert devices and devices[0].device_type == "CPU" and "CPU:0" in devices[0].name
    session.close()
    with pytest.raises(RuntimeError, match="closed"):
        session.run(y, {x: [[1, 1]]})


def test_run_metadata():
    graph, x, y = small_graph()
    metadata = tessera.RunMetadata()
    with tessera.Session(graph) as session:
        session.run(y, {x: [[1, 1]]}, options=tessera.RunOptions(trace_level=3),
                    run_metadata=metadata)
    names = [node["name"] for device in metadata.step_stats for node in device["nodes"]]
    assert "y" in names
    assert metadata.serialized


def test_graph_grows_after_the_session_is_made():
    graph, x, y = small_graph()
    with tessera.Session(graph) as session:
        session.run(y, {x: [[1, 1]]})
        with graph.as_default():
            z = ops.relu(ops.neg(y))
        np.testing.assert_array_equal(session.run(z, {x: [[-1, 0]]}), [[1, 2, 3]])


def test_the_c_step_is_used_when_built():
    from tessera import session as session_module
    if os.environ.get("TESSERA_PYTHON_NO_FASTRUN"):
        assert session_module._fastrun is None
    elif os.environ.get("TESSERA_EXPECT_FASTRUN"):
        assert session_module._fastrun is not None


def test_plugins_lists_the_cpu_plugin():
    by_name = {p["name"]: p for p in tessera.plugins()}
    assert by_name["cpu"]["state"] == "LOADED"


def test_errors(source_dir, tmp_path):
    graph, x, y = small_graph()
    with tessera.Session(graph) as session:
        with pytest.raises(tessera.errors.InvalidArgumentError, match="x:0"):
            session.run(y, {x: [1.0, 2.0, 3.0]})  # wrong rank
        with pytest.raises(tessera.errors.InvalidArgumentError, match="x"):
            session.run(y)  # x not fed
        with pytest.raises(KeyError, match="nowhere"):
            session.run("nowhere:0")
        with pytest.raises(TypeError, match="cannot fetch"):
            session.run(3.5)
    with pytest.raises(OSError):
        tessera.Session(str(tmp_path / "missing.pb"))
    garbage = tmp_path / "garbage.pb"
    garbage.write_bytes(b"\xff\xff\xff\xff")
    with pytest.raises(tessera.errors.InvalidArgumentError, match="not a valid binary GraphDef"):
        tessera.Session(str(garbage))
    with pytest.raises(tessera.errors.InvalidArgumentError, match="nonsense"):
        tessera.Session(graph, target="nonsense")
    with pytest.raises(ValueError, match="not_a_field"):
        tessera.Session(graph, config={"not_a_field": 1})
    with pytest.raises(tessera.errors.InvalidArgumentError, match="ConfigProto"):
        tessera.Session(graph, config=b"\xff\xff\xff")
    with pytest.raises(tessera.errors.NotFoundError):
        tessera.load_plugin(str(tmp_path / "libnothing.so"))
