"""Sessions: run a graph's tensors with numpy values in and out (TF_Session)."""
import collections
import ctypes
import json
import os
import threading

import numpy as np

from tessera import _c
from tessera import _proto
from tessera import _tensors
from tessera import framework

try:  # Session.run's step in C; without it, the same C API calls through ctypes
    from tessera import _fastrun
except ImportError:
    _fastrun = None
if os.environ.get("TESSERA_PYTHON_NO_FASTRUN"):
    _fastrun = None

DeviceAttributes = collections.namedtuple(
    "DeviceAttributes", ["name", "device_type", "memory_limit_bytes"])


class RunOptions:
    """What one run records: trace_level > 0 (FULL_TRACE is 3) collects step statistics;
    timeout_in_ms bounds the step."""

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3

    def __init__(self, trace_level=0, timeout_in_ms=0):
        self.trace_level = trace_level
        self.timeout_in_ms = timeout_in_ms


class RunMetadata:
    """Filled by Session.run: `step_stats` is a list of {"device": ..., "nodes": [{"name",
    "start_ns", "duration_ns", "thread_id"}]} (empty unless the run traced), `serialized` the
    tensorflow.RunMetadata bytes."""

    def __init__(self):
        self.serialized = b""
        self.step_stats = []

    def _parse(self, data):
        self.serialized = data
        self.step_stats = []
        for number, _, stats in _proto.fields(data):
            if number != 1:
                continue
            for field, _, device_data in _proto.fields(stats):
                if field != 1:
                    continue
                device = {"device": "", "nodes": []}
                for f, _, value in _proto.fields(device_data):
                    if f == 1:
                        device["device"] = value.decode()
                    elif f == 2:
                        node = {"name": "", "start_ns": 0, "duration_ns": 0, "thread_id": 0}
                        for g, _, v in _proto.fields(value):
                            if g == 1:
                                node["name"] = v.decode()
                            elif g == 18:
                                node["start_ns"] = v
                            elif g == 21:
                                node["duration_ns"] = v
                            elif g == 10:
                                node["thread_id"] = v
                        device["nodes"].append(node)
                self.step_stats.append(device)


def _flatten(fetches):
    """The fetches' leaves in order, and a function rebuilding the structure from their values:
    lists, tuples, namedtuples and dicts nest as in TensorFlow."""
    if isinstance(fetches, dict):
        keys = list(fetches)
        parts = [_flatten(fetches[k]) for k in keys]
        leaves = [leaf for part in parts for leaf in part[0]]

        def rebuild(values):
            result, pos = type(fetches)() if type(fetches) is not dict else {}, 0
            for key, (part_leaves, part_rebuild) in zip(keys, parts):
                result[key] = part_rebuild(values[pos:pos + len(part_leaves)])
                pos += len(part_leaves)
            return result
        return leaves, rebuild
    if isinstance(fetches, (list, tuple)):
        parts = [_flatten(f) for f in fetches]
        leaves = [leaf for part in parts for leaf in part[0]]

        def rebuild(values):
            items, pos = [], 0
            for part_leaves, part_rebuild in parts:
                items.append(part_rebuild(values[pos:pos + len(part_leaves)]))
                pos += len(part_leaves)
            if isinstance(fetches, tuple) and hasattr(fetches, "_fields"):
                return type(fetches)(*items)
            return type(fetches)(items) if isinstance(fetches, tuple) else items
        return leaves, rebuild
    return [fetches], lambda values: values[0]


class Session:
    """Runs a graph: `Session()` runs the default graph, `Session(graph)` a Graph,
    `Session("model.pb")` a binary GraphDef file. `target` is "" (local, the default) or
    "grpc://host:port"; `config` a dict of ConfigProto fields (device_count,
    intra_op_parallelism_threads, inter_op_parallelism_threads, allow_soft_placement,
    log_device_placement, operation_timeout_in_ms) or serialized ConfigProto bytes."""

    def __init__(self, graph_or_path=None, target=None, config=None, graph=None):
        if graph_or_path is None:
            graph_or_path = graph
        if graph_or_path is None:
            self.graph = framework.get_default_graph()
        elif isinstance(graph_or_path, framework.Graph):
            self.graph = graph_or_path
        elif isinstance(graph_or_path, (str, bytes, os.PathLike)):
            path = os.fsdecode(graph_or_path)
            with open(path, "rb") as f:
                data = f.read()
            self.graph = framework.Graph()
            self.graph.import_graph_def(data)
        else:
            raise TypeError(f"Session takes a Graph or a GraphDef file, not {graph_or_path!r}")
        options = _c.lib.TF_NewSessionOptions()
        try:
            if target:
                _c.lib.TF_SetTarget(options, target.encode())
            if config is not None:
                data = config if isinstance(config, (bytes, bytearray)) else \
                    _proto.encode_config(config)
                _c.call_with_status(_c.lib.TF_SetConfig, options, bytes(data), len(data))
            self._ptr = _c.call_with_status(_c.lib.TF_NewSession, self.graph._ptr, options)
        finally:
            _c.lib.TF_DeleteSessionOptions(options)
        self._closed = False
        self._plans = {}

    def __del__(self):
        if getattr(self, "_ptr", None) and _c.lib is not None:
            status = _c.Status()
            _c.lib.TF_DeleteSession(self._ptr, status.ptr)
            self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *unused):
        self.close()

    def close(self):
        if self._ptr and not self._closed:
            _c.call_with_status(_c.lib.TF_CloseSession, self._ptr)
            self._closed = True

    def list_devices(self):
        devices = _c.call_with_status(_c.lib.TF_SessionListDevices, self._ptr)
        try:
            result = []
            for i in range(_c.lib.TF_DeviceListCount(devices)):
                name = _c.call_with_status(_c.lib.TF_DeviceListName, devices, i).decode()
                kind = _c.call_with_status(_c.lib.TF_DeviceListType, devices, i).decode()
                memory = _c.call_with_status(_c.lib.TF_DeviceListMemoryBytes, devices, i)
                result.append(DeviceAttributes(name, kind, memory))
            return result
        finally:
            _c.lib.TF_DeleteDeviceList(devices)

    def _resolve(self, fetch):
        """('tensor', Tensor) or ('target', Operation) for one fetch."""
        if isinstance(fetch, str):
            if ":" in fetch:
                return "tensor", self.graph.get_tensor_by_name(fetch)
            return "target", self.graph.get_operation_by_name(fetch)
        if isinstance(fetch, framework.Operation):
            return "target", fetch
        if framework._is_tensor_like(fetch):
            return "tensor", framework.as_tensor(fetch)
        raise TypeError(f"cannot fetch {fetch!r}: fetch a Tensor, an Operation or a name")

    def _feed_tensor(self, key):
        if isinstance(key, str):
            if ":" not in key:
                key += ":0"
            return self.graph.get_tensor_by_name(key)
        if framework._is_tensor_like(key):
            return framework.as_tensor(key)
        raise TypeError(f"cannot feed {key!r}: feed a Tensor or a tensor name")

    def _plan(self, leaves, feed_keys):
        """The step for these fetch leaves and feed keys, made once and kept."""
        try:
            key = (tuple(leaves), feed_keys)
            plan = self._plans.get(key)
        except TypeError:  # an unhashable leaf: no caching
            key, plan = None, None
        if plan is None:
            plan = _Plan(self, leaves, feed_keys)
            if key is not None:
                if len(self._plans) >= 64:
                    self._plans.clear()
                self._plans[key] = plan
        return plan

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """The values of `fetches` (a Tensor, an Operation, a name, or lists, tuples and dicts of
        them), as numpy arrays in the same structure (None for an Operation), after feeding
        `feed_dict` ({Tensor or name: value})."""
        if self._closed:
            raise RuntimeError("this session has been closed")
        if isinstance(fetches, (framework.Tensor, str)):  # the common case, without structure
            leaves, rebuild = [fetches], None
        else:
            leaves, rebuild = _flatten(fetches)
        feed_dict = feed_dict or {}
        plan = self._plan(leaves, tuple(feed_dict))
        values = plan.run(list(feed_dict.values()), options, run_metadata)
        return values[0] if rebuild is None else rebuild(values)

    def make_callable(self, fetches, feed_list=None):
        """A function running `fetches` with positional feeds for `feed_list`, prepared once."""
        if self._closed:
            raise RuntimeError("this session has been closed")
        single = isinstance(fetches, (framework.Tensor, str))
        leaves, rebuild = ([fetches], None) if single else _flatten(fetches)
        plan = _Plan(self, leaves, tuple(feed_list or []))

        def call(*values):
            if self._closed:
                raise RuntimeError("this session has been closed")
            results = plan.run(values)
            return results[0] if rebuild is None else rebuild(results)
        return call


class _Plan:
    """One kind of step of a session: the fetched tensors, the targets and the fed tensors,
    resolved once, with the C arrays TF_SessionRun reads."""

    def __init__(self, session, leaves, feed_keys):
        self.session = session
        outputs, targets, self.slots = [], [], []
        for leaf in leaves:
            kind, item = session._resolve(leaf)
            if kind == "tensor":
                self.slots.append(len(outputs))
                outputs.append(item)
            else:
                self.slots.append(None)
                targets.append(item)
        self.feeds = [session._feed_tensor(k) for k in feed_keys]
        self.feed_types = [(t.dtype, t.dtype.as_datatype_enum,
                            None if t.dtype.name == "string" else t.dtype.as_numpy_dtype)
                           for t in self.feeds]
        self.outputs = outputs
        self.output_types = [t.dtype for t in outputs]
        self.n_in, self.n_out, self.n_targets = len(self.feeds), len(outputs), len(targets)
        self.in_outputs = (_c.TF_Output * max(1, self.n_in))(*[t._as_output() for t in self.feeds])
        self.out_outputs = (_c.TF_Output * max(1, self.n_out))(
            *[t._as_output() for t in outputs])
        self.target_ops = (ctypes.c_void_p * max(1, self.n_targets))(*[o._ptr for o in targets])
        self.simple = all(slot is not None for slot in self.slots)
        self.in_array = ctypes.c_void_p * max(1, self.n_in)
        self.out_array = ctypes.c_void_p * max(1, self.n_out)
        # For tessera._fastrun: the addresses of the C arrays, and per output its numpy type
        # number (-1: converted here, as strings are).
        self.fast_args = (ctypes.addressof(self.in_outputs), ctypes.addressof(self.out_outputs),
                          ctypes.addressof(self.target_ops))
        self.fed_enums = tuple(tf_type for _, tf_type, _ in self.feed_types)
        self.typenums = tuple(
            -1 if t.name == "string" or t.as_numpy_dtype is None else
            np.dtype(t.as_numpy_dtype).num for t in self.output_types)
        self._local = threading.local()  # a TF_Status per thread running this plan

    def _to_tensor(self, value, dtype, tf_type, numpy_type):
        if numpy_type is not None:
            if type(value) is not np.ndarray or value.dtype != numpy_type:
                value = np.asarray(value, dtype=numpy_type)
            if value.flags.c_contiguous:
                return _tensors.lend_array(value, tf_type)
        return _tensors.to_tf_tensor(value, dtype)

    def run(self, values, options=None, run_metadata=None):
        if _fastrun is not None and options is None and run_metadata is None and \
                self.n_in <= 1024 and self.n_out <= 1024:
            arrays = self._fast_arrays(values)
            if arrays is not None:
                return self._fast_run(arrays)
        return self._ctypes_run(values, options, run_metadata)

    def _fast_arrays(self, values):
        """The fed values as C-contiguous arrays of the fed types, or None when one is not
        (strings, types without numpy form): the ctypes path converts those."""
        arrays = []
        for value, (_, _, numpy_type) in zip(values, self.feed_types):
            if numpy_type is None:
                return None
            if type(value) is not np.ndarray or value.dtype != numpy_type:
                value = np.asarray(value, dtype=numpy_type)
            if not value.flags.c_contiguous:
                value = value.copy(order="C")
            arrays.append(value)
        if len(arrays) != self.n_in:
            raise ValueError(f"{len(arrays)} values for {self.n_in} feeds")
        return tuple(arrays)

    def _fast_run(self, arrays):
        inputs, outputs, targets = self.fast_args
        result = _fastrun.run(self.session._ptr, inputs, arrays, self.fed_enums, outputs,
                              self.n_out, targets, self.n_targets, self.typenums)
        if isinstance(result, tuple):
            raise _c.errors.from_code(result[0], result[1])
        for i, typenum in enumerate(self.typenums):
            if typenum < 0:
                result[i] = _tensors.from_tf_tensor(result[i], self.output_types[i])
        if self.simple:
            return result
        return [None if slot is None else result[slot] for slot in self.slots]

    def _ctypes_run(self, values, options, run_metadata):
        lib = _c.lib
        n_in, n_out = self.n_in, self.n_out
        in_values = self.in_array()
        made = 0
        try:
            for i, (value, (dtype, tf_type, numpy_type)) in enumerate(zip(values, self.feed_types)):
                in_values[i] = self._to_tensor(value, dtype, tf_type, numpy_type)
                made += 1
        except BaseException:
            for i in range(made):
                lib.TF_DeleteTensor(in_values[i])
            raise
        out_values = self.out_array()
        run_options = None
        if options is not None:
            data = _proto.encode_run_options(options.trace_level, options.timeout_in_ms)
            run_options = lib.TF_NewBufferFromString(data, len(data))
        metadata = lib.TF_NewBuffer() if run_metadata is not None else None
        status = getattr(self._local, "status", None)
        if status is None:
            status = self._local.status = _c.Status()
        try:
            lib.TF_SessionRun(self.session._ptr, run_options, self.in_outputs, in_values, n_in,
                              self.out_outputs, out_values, n_out, self.target_ops,
                              self.n_targets, metadata, status.ptr)
        finally:
            for i in range(n_in):
                lib.TF_DeleteTensor(in_values[i])
            if run_options is not None:
                lib.TF_DeleteBuffer(run_options)
        try:
            status.check()
            if metadata is not None:
                run_metadata._parse(_c.buffer_bytes(metadata))
        finally:
            if metadata is not None:
                lib.TF_DeleteBuffer(metadata)
        results = [_tensors.from_tf_tensor(out_values[i], self.output_types[i])
                   for i in range(n_out)]
        if self.simple:
            return results
        return [None if slot is None else results[slot] for slot in self.slots]


def plugins():
    """Every plugin the C API's sessions would use, loaded or rejected with the reason: a list of
    dicts as `tessera plugins --json` prints them."""
    buffer = _c.call_with_status(_c.lib.TESSERA_PluginsJson)
    try:
        report = json.loads(_c.buffer_bytes(buffer).decode())
    finally:
        _c.lib.TF_DeleteBuffer(buffer)
    return report.get("plugins", report) if isinstance(report, dict) else report


def load_plugin(path):
    """Loads a Tessera plugin (its manifest, its folder, or its shared object with the manifest
    beside it) for the graphs and sessions created afterwards."""
    library = _c.call_with_status(_c.lib.TF_LoadPluggableDeviceLibrary, os.fsencode(path))
    _c.lib.TF_DeletePluggableDeviceLibraryHandle(library)
