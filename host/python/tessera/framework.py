"""Graphs, operations and symbolic tensors, over the C API's TF_Graph and TF_Operation."""
import contextlib
import ctypes
import re
import threading

import numpy as np

from tessera import _c
from tessera import _proto
from tessera import _tensors
from tessera import dtypes

# ---- The op registry ---------------------------------------------------------------------------

_op_defs = None
_op_defs_lock = threading.Lock()


def op_defs():
    """Every registered op's definition by name (standard ops and plugin ops), read once."""
    global _op_defs
    with _op_defs_lock:
        if _op_defs is None:
            buffer = _c.lib.TF_GetAllOpList()
            try:
                data = _c.buffer_bytes(buffer)
            finally:
                _c.lib.TF_DeleteBuffer(buffer)
            _op_defs = {op.name: op for op in _proto.parse_op_list(data)}
        return _op_defs


# ---- Graphs ------------------------------------------------------------------------------------

class Graph:
    """A dataflow graph (TF_Graph). Nodes are named as TensorFlow names them: an op without a
    name takes its type's name, made unique with "_1", "_2", ...; name scopes prefix them."""

    def __init__(self):
        self._ptr = _c.lib.TF_NewGraph()
        self._names = {}
        self._scope = ""
        self._operations = {}
        self._collections = {}
        self._control_dependencies = []
        self._device = ""
        self._lock = threading.RLock()

    def __del__(self):
        if getattr(self, "_ptr", None) and _c.lib is not None:
            _c.lib.TF_DeleteGraph(self._ptr)
            self._ptr = None

    # The graph made default by `with graph.as_default():`.
    @contextlib.contextmanager
    def as_default(self):
        _default_graph_stack.append(self)
        try:
            yield self
        finally:
            _default_graph_stack.pop()

    @contextlib.contextmanager
    def name_scope(self, name):
        old = self._scope
        if name:
            scope = self.unique_name(name)
            self._scope = scope + "/"
        try:
            yield self._scope.rstrip("/")
        finally:
            self._scope = old

    @contextlib.contextmanager
    def device(self, device):
        old = self._device
        self._device = device or ""
        try:
            yield
        finally:
            self._device = old

    @contextlib.contextmanager
    def control_dependencies(self, operations):
        old = self._control_dependencies
        self._control_dependencies = old + [_as_operation(o) for o in operations or []]
        try:
            yield
        finally:
            self._control_dependencies = old

    def unique_name(self, name):
        """`name` under the current scope, with "_N" appended when taken."""
        full = self._scope + name
        with self._lock:
            if full not in self._names and not _c.lib.TF_GraphOperationByName(
                    self._ptr, full.encode()):
                self._names[full] = 0
                return full
            count = self._names.get(full, 0)
            while True:
                count += 1
                candidate = f"{full}_{count}"
                if candidate not in self._names and not _c.lib.TF_GraphOperationByName(
                        self._ptr, candidate.encode()):
                    self._names[full] = count
                    self._names[candidate] = 0
                    return candidate

    def _wrap(self, ptr):
        if not ptr:
            return None
        operation = self._operations.get(ptr)
        if operation is None:
            operation = Operation(self, ptr)
            self._operations[ptr] = operation
        return operation

    def get_operation_by_name(self, name):
        operation = self._wrap(_c.lib.TF_GraphOperationByName(self._ptr, name.encode()))
        if operation is None:
            raise KeyError(f"the graph has no operation named '{name}'")
        return operation

    def get_tensor_by_name(self, name):
        op_name, _, index = name.rpartition(":")
        if not op_name or not index.isdigit():
            raise ValueError(f"'{name}' is not a tensor name (node:index)")
        operation = self.get_operation_by_name(op_name)
        if int(index) >= len(operation.outputs):
            raise KeyError(f"'{op_name}' has {len(operation.outputs)} outputs, not {index}")
        return operation.outputs[int(index)]

    def get_operations(self):
        result = []
        pos = ctypes.c_size_t(0)
        while True:
            ptr = _c.lib.TF_GraphNextOperation(self._ptr, ctypes.byref(pos))
            if not ptr:
                return result
            result.append(self._wrap(ptr))

    def as_graph_def(self):
        """The graph as a serialized GraphDef (bytes)."""
        buffer = _c.lib.TF_NewBuffer()
        try:
            _c.call_with_status(_c.lib.TF_GraphToGraphDef, self._ptr, buffer)
            return _c.buffer_bytes(buffer)
        finally:
            _c.lib.TF_DeleteBuffer(buffer)

    def import_graph_def(self, graph_def, prefix=""):
        """Adds a serialized GraphDef's nodes (under `prefix/` when given)."""
        data = bytes(graph_def)
        buffer = _c.lib.TF_NewBufferFromString(data, len(data))
        options = _c.lib.TF_NewImportGraphDefOptions()
        try:
            if prefix:
                _c.lib.TF_ImportGraphDefOptionsSetPrefix(options, prefix.encode())
            _c.call_with_status(_c.lib.TF_GraphImportGraphDef, self._ptr, buffer, options)
        finally:
            _c.lib.TF_DeleteImportGraphDefOptions(options)
            _c.lib.TF_DeleteBuffer(buffer)

    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def get_collection(self, name):
        return list(self._collections.get(name, []))


_default_graph_stack = []
_global_default_graph = [None]


def get_default_graph():
    if _default_graph_stack:
        return _default_graph_stack[-1]
    if _global_default_graph[0] is None:
        _global_default_graph[0] = Graph()
    return _global_default_graph[0]


def reset_default_graph():
    if _default_graph_stack:
        raise RuntimeError("reset_default_graph inside a `with graph.as_default()` block")
    _global_default_graph[0] = Graph()


# ---- Operations and tensors --------------------------------------------------------------------

class Operation:
    """A node of a graph."""

    def __init__(self, graph, ptr):
        self.graph = graph
        self._ptr = ptr
        count = _c.lib.TF_OperationNumOutputs(ptr)
        self.outputs = [Tensor(self, i) for i in range(count)]

    @property
    def name(self):
        return _c.lib.TF_OperationName(self._ptr).decode()

    @property
    def type(self):
        return _c.lib.TF_OperationOpType(self._ptr).decode()

    @property
    def device(self):
        return _c.lib.TF_OperationDevice(self._ptr).decode()

    @property
    def inputs(self):
        result = []
        for i in range(_c.lib.TF_OperationNumInputs(self._ptr)):
            source = _c.lib.TF_OperationInput(_c.TF_Input(self._ptr, i))
            result.append(self.graph._wrap(source.oper).outputs[source.index])
        return result

    def __repr__(self):
        return f"<tessera.Operation '{self.name}' type={self.type}>"


class Tensor:
    """Output `value_index` of an operation: a symbolic value of the graph."""

    def __init__(self, op, value_index):
        self.op = op
        self.value_index = value_index
        self._output = _c.TF_Output(op._ptr, value_index)
        self._dtype = None

    @property
    def graph(self):
        return self.op.graph

    @property
    def name(self):
        return f"{self.op.name}:{self.value_index}"

    @property
    def dtype(self):
        if self._dtype is None:  # fixed when the node was made
            self._dtype = dtypes.as_dtype(_c.lib.TF_OperationOutputType(self._output))
        return self._dtype

    @property
    def shape(self):
        """The static shape: a list of ints (None where unknown), or None for an unknown rank."""
        output = self._as_output()
        rank = _c.call_with_status(_c.lib.TF_GraphGetTensorNumDims, self.graph._ptr, output)
        if rank < 0:
            return None
        dims = (ctypes.c_int64 * max(1, rank))()
        _c.call_with_status(_c.lib.TF_GraphGetTensorShape, self.graph._ptr, output, dims, rank)
        return [None if d < 0 else d for d in dims[:rank]]

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        output = self._as_output()
        if shape is None:
            return
        dims = (ctypes.c_int64 * max(1, len(shape)))(*[-1 if d is None else d for d in shape])
        _c.call_with_status(_c.lib.TF_GraphSetTensorShape, self.graph._ptr, output, dims,
                            len(shape))

    def _as_output(self):
        return self._output

    def __repr__(self):
        return f"<tessera.Tensor '{self.name}' dtype={self.dtype.name} shape={self.shape}>"

    # Operators, as TensorFlow's tensors have them.
    def __add__(self, other):
        return _binary("AddV2", self, other)

    def __radd__(self, other):
        return _binary("AddV2", other, self)

    def __sub__(self, other):
        return _binary("Sub", self, other)

    def __rsub__(self, other):
        return _binary("Sub", other, self)

    def __mul__(self, other):
        return _binary("Mul", self, other)

    def __rmul__(self, other):
        return _binary("Mul", other, self)

    def __truediv__(self, other):
        return _binary("RealDiv", self, other)

    def __rtruediv__(self, other):
        return _binary("RealDiv", other, self)

    def __matmul__(self, other):
        return _binary("MatMul", self, other)

    def __neg__(self):
        return create_op("Neg", [self])[0]

    def __lt__(self, other):
        return _binary("Less", self, other)

    def __gt__(self, other):
        return _binary("Greater", self, other)

    def __le__(self, other):
        return _binary("LessEqual", self, other)

    def __ge__(self, other):
        return _binary("GreaterEqual", self, other)

    __hash__ = object.__hash__


def _binary(op_type, a, b):
    a_is, b_is = _is_tensor_like(a), _is_tensor_like(b)
    tensor = as_tensor(a) if a_is else (as_tensor(b) if b_is else None)
    dtype = tensor.dtype if tensor is not None else None
    graph = tensor.graph if tensor is not None else None
    return create_op(op_type, [convert_to_tensor(a, dtype, graph=graph),
                               convert_to_tensor(b, dtype, graph=graph)])[0]


def _is_tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_tensor")


def as_tensor(value):
    if isinstance(value, Tensor):
        return value
    return value._as_graph_tensor()


def _as_operation(value):
    if isinstance(value, Operation):
        return value
    if isinstance(value, Tensor):
        return value.op
    if hasattr(value, "_as_graph_tensor"):
        return value._as_graph_tensor().op
    if hasattr(value, "op") and isinstance(value.op, Operation):
        return value.op
    raise TypeError(f"{value!r} is not an operation or a tensor")


def convert_to_tensor(value, dtype=None, name=None, graph=None):
    """A Tensor for `value`: tensors pass through (checked against `dtype`); other values become
    a Const node."""
    if _is_tensor_like(value):
        tensor = as_tensor(value)
        if dtype is not None and tensor.dtype != dtypes.as_dtype(dtype):
            raise TypeError(f"tensor '{tensor.name}' has type {tensor.dtype.name}, "
                            f"expected {dtypes.as_dtype(dtype).name}")
        return tensor
    return constant(value, dtype=dtype, name=name, graph=graph)


def constant(value, dtype=None, shape=None, name=None, graph=None):
    """A Const node holding `value` (broadcast to `shape` when given)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if shape is not None and dtype != dtypes.string:
        numpy_type = None if dtype is None else dtype.as_numpy_dtype
        array = np.asarray(value, dtype=numpy_type)
        value = np.broadcast_to(array, shape) if array.size == 1 else array.reshape(shape)
    tensor = _tensors.to_tf_tensor(value, dtype)
    try:
        tf_type = _c.lib.TF_TensorType(tensor)
        return create_op("Const", [], {"value": ("tensor_ptr", tensor), "dtype": tf_type},
                         name=name or "Const", graph=graph)[0]
    finally:
        _c.lib.TF_DeleteTensor(tensor)


# ---- Creating operations -----------------------------------------------------------------------

def _set_attr(desc, name, attr_type, value):
    key = name.encode()
    lib = _c.lib
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "tensor_ptr":
        _c.call_with_status(lib.TF_SetAttrTensor, desc, key, value[1])
        return
    if attr_type == "string":
        data = value.encode() if isinstance(value, str) else bytes(value)
        lib.TF_SetAttrString(desc, key, data, len(data))
    elif attr_type == "int":
        lib.TF_SetAttrInt(desc, key, int(value))
    elif attr_type == "float":
        lib.TF_SetAttrFloat(desc, key, float(value))
    elif attr_type == "bool":
        lib.TF_SetAttrBool(desc, key, 1 if value else 0)
    elif attr_type == "type":
        lib.TF_SetAttrType(desc, key, dtypes.as_dtype(value).as_datatype_enum)
    elif attr_type == "shape":
        if value is None:
            lib.TF_SetAttrShape(desc, key, None, -1)
        else:
            dims = [-1 if d is None else int(d) for d in value]
            lib.TF_SetAttrShape(desc, key, (ctypes.c_int64 * max(1, len(dims)))(*dims), len(dims))
    elif attr_type == "tensor":
        tensor = _tensors.to_tf_tensor(value)
        try:
            _c.call_with_status(lib.TF_SetAttrTensor, desc, key, tensor)
        finally:
            lib.TF_DeleteTensor(tensor)
    elif attr_type == "func":
        data = value.encode()
        lib.TF_SetAttrFuncName(desc, key, data, len(data))
    elif attr_type == "list(int)":
        lib.TF_SetAttrIntList(desc, key, (ctypes.c_int64 * max(1, len(value)))(*value), len(value))
    elif attr_type == "list(float)":
        lib.TF_SetAttrFloatList(desc, key, (ctypes.c_float * max(1, len(value)))(*value),
                                len(value))
    elif attr_type == "list(bool)":
        lib.TF_SetAttrBoolList(desc, key, (ctypes.c_ubyte * max(1, len(value)))(
            *[1 if v else 0 for v in value]), len(value))
    elif attr_type == "list(type)":
        enums = [dtypes.as_dtype(v).as_datatype_enum for v in value]
        lib.TF_SetAttrTypeList(desc, key, (ctypes.c_int * max(1, len(enums)))(*enums), len(enums))
    elif attr_type == "list(string)":
        data = [v.encode() if isinstance(v, str) else bytes(v) for v in value]
        pointers = (ctypes.c_void_p * max(1, len(data)))(
            *[ctypes.cast(ctypes.c_char_p(d), ctypes.c_void_p) for d in data])
        lengths = (ctypes.c_size_t * max(1, len(data)))(*[len(d) for d in data])
        lib.TF_SetAttrStringList(desc, key, pointers, lengths, len(data))
    elif attr_type == "list(shape)":
        arrays = [(ctypes.c_int64 * max(1, len(s or [])))(*[-1 if d is None else d for d in s or []])
                  for s in value]
        pointers = (_c.c_int64_p * max(1, len(arrays)))(
            *[ctypes.cast(a, _c.c_int64_p) for a in arrays])
        ranks = (ctypes.c_int * max(1, len(value)))(*[-1 if s is None else len(s) for s in value])
        lib.TF_SetAttrShapeList(desc, key, pointers, ranks, len(value))
    else:
        raise TypeError(f"attr '{name}' of type {attr_type} cannot be set from Python")


def create_op(op_type, inputs, attrs=None, name=None, graph=None, control_inputs=None):
    """The outputs (a list of Tensors) of a new node: see create_operation."""
    return create_operation(op_type, inputs, attrs, name, graph, control_inputs).outputs


def create_operation(op_type, inputs, attrs=None, name=None, graph=None, control_inputs=None,
                     exact_name=False):
    """Adds a node of `op_type` and returns its Operation: `inputs` holds one entry per input
    argument (a Tensor, or a list of Tensors for a list argument); `attrs` maps attr names to
    values (their kinds come from the op's definition). The node is named `name` (or the op's
    type) under the current name scope, made unique; with exact_name, `name` as it is."""
    op_def = op_defs().get(op_type)
    if op_def is None:
        raise _c.errors.NotFoundError(f"op '{op_type}' is not registered")
    if graph is None:
        graph = None
        for value in inputs:
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if _is_tensor_like(item):
                    graph = as_tensor(item).graph
                    break
            if graph is not None:
                break
        if graph is None:
            graph = get_default_graph()
    attr_types = {a.name: a.type for a in op_def.attr}
    for attr_name, value in (attrs or {}).items():
        if value is not None and attr_name not in attr_types and not attr_name.startswith("_"):
            raise TypeError(f"op '{op_type}' has no attr '{attr_name}'")
    # Checked before the description exists: from here on, every way out finishes it (an error
    # first poisons it, so that nothing is added).
    operands = []
    for arg, value in zip(op_def.input_arg, inputs):
        operands.append([as_tensor(v) for v in value] if arg.is_list else as_tensor(value))
    dependencies = list(graph._control_dependencies) + [
        _as_operation(o) for o in control_inputs or []]
    node_name = name if exact_name else graph.unique_name(name or op_type)
    desc = _c.lib.TF_NewOperation(graph._ptr, op_type.encode(), node_name.encode())
    status = _c.Status()
    try:
        for arg, value in zip(op_def.input_arg, operands):
            if arg.is_list:
                outputs = (_c.TF_Output * max(1, len(value)))(*[t._as_output() for t in value])
                _c.lib.TF_AddInputList(desc, outputs, len(value))
            else:
                _c.lib.TF_AddInput(desc, value._as_output())
        for dependency in dependencies:
            _c.lib.TF_AddControlInput(desc, dependency._ptr)
        if graph._device:
            _c.lib.TF_SetDevice(desc, graph._device.encode())
        for attr_name, value in (attrs or {}).items():
            if value is None:
                continue
            if attr_name == "dtype" and isinstance(value, int) and \
                    attr_types.get(attr_name) == "type":
                _c.lib.TF_SetAttrType(desc, attr_name.encode(), value)
                continue
            _set_attr(desc, attr_name, attr_types.get(attr_name, ""), value)
    except BaseException:
        _c.lib.TF_AddInputList(desc, None, -1)  # poisons the description: nothing is added
        _c.lib.TF_FinishOperation(desc, status.ptr)
        raise
    ptr = _c.lib.TF_FinishOperation(desc, status.ptr)
    status.check()
    return graph._wrap(ptr)
