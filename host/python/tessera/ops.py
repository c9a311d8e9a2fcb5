"""One Python function per registered op, generated from the op registry as TensorFlow generates
its gen_*_ops modules: `tessera.ops.mat_mul(a, b, transpose_b=True)` adds a MatMul node. Input
arguments come first (Tensors, or Python and numpy values, which become Const nodes), then the
attrs that the inputs do not determine (keyword arguments; those with a default may be left out),
then `name`. An op with one output argument returns its Tensor (a list of Tensors for a list
argument, as Split's), one without outputs its Operation, others a tuple with one entry per
output argument.

`tessera.raw_ops.MatMul(a=..., b=...)` is the same function under the op's own name, taking
keyword arguments only, as TensorFlow's tf.raw_ops."""
import inspect
import keyword
import sys

from tessera import _c
from tessera import dtypes
from tessera import framework


def snake_case(op_name):
    """TensorFlow's Python name of an op: MatMul -> mat_mul, Conv2D -> conv2d, AddV2 -> add_v2."""
    out = []
    for i, c in enumerate(op_name):
        if c.isupper() and i > 0:
            prev = op_name[i - 1]
            following = op_name[i + 1] if i + 1 < len(op_name) else ""
            if prev.islower() or (prev.isupper() and following.islower()):
                out.append("_")
        out.append(c.lower())
    name = "".join(out)
    return name + "_" if keyword.iskeyword(name) else name


def _python_name(name):
    return name + "_" if keyword.iskeyword(name) else name


def _convert_inputs(op_def, bound, attrs):
    """Tensors for every input argument, with the dtypes the op's type attrs give."""
    group_types = {}
    graph = None  # Python values become constants of the graph the tensor inputs belong to
    for arg in op_def.input_arg:
        value = bound[_python_name(arg.name)]
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if graph is None and framework._is_tensor_like(item):
                graph = framework.as_tensor(item).graph
    for arg in op_def.input_arg:
        if arg.type_attr and arg.type_attr in attrs:
            group_types[arg.type_attr] = dtypes.as_dtype(attrs[arg.type_attr])
    for arg in op_def.input_arg:
        value = bound[_python_name(arg.name)]
        items = value if arg.is_list and isinstance(value, (list, tuple)) else [value]
        for item in items:
            if arg.type_attr and arg.type_attr not in group_types and \
                    framework._is_tensor_like(item):
                group_types[arg.type_attr] = framework.as_tensor(item).dtype
    converted = []
    for arg in op_def.input_arg:
        value = bound[_python_name(arg.name)]
        dtype = dtypes.as_dtype(arg.type) if arg.type else group_types.get(arg.type_attr)
        if arg.is_list:
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"input '{arg.name}' of {op_def.name} takes a list")
            tensors = [framework.convert_to_tensor(v, dtype, graph=graph) for v in value]
            if arg.type_attr and tensors and arg.type_attr not in group_types:
                group_types[arg.type_attr] = tensors[0].dtype
            converted.append(tensors)
        else:
            tensor = framework.convert_to_tensor(value, dtype, graph=graph)
            if arg.type_attr and arg.type_attr not in group_types:
                group_types[arg.type_attr] = tensor.dtype
            converted.append(tensor)
    return converted


def _group_outputs(op_def, operation):
    outputs = operation.outputs
    if not op_def.output_arg:
        return operation
    grouped = []
    position = 0
    for arg in op_def.output_arg:
        if arg.is_list:
            length = _c.call_with_status(_c.lib.TF_OperationOutputListLength, operation._ptr,
                                         arg.name.encode())
            grouped.append(outputs[position:position + length])
            position += length
        else:
            grouped.append(outputs[position])
            position += 1
    if len(grouped) == 1:  # a Tensor, or the list of a single list output (Split)
        return grouped[0]
    return tuple(grouped)


def make_op_function(op_def, keyword_only=False):
    inferred = set()
    for arg in op_def.input_arg:
        inferred.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)
    kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else \
        inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter(_python_name(arg.name), kind) for arg in op_def.input_arg]
    attrs = [a for a in op_def.attr if a.name not in inferred and not a.name.startswith("_")]
    # Attrs without a default come first, as TensorFlow orders them.
    for attr in sorted(attrs, key=lambda a: a.has_default):
        parameters.append(inspect.Parameter(
            _python_name(attr.name), kind,
            default=None if attr.has_default else inspect.Parameter.empty))
    parameters.append(inspect.Parameter("name", kind, default=None))
    signature = inspect.Signature(parameters)

    def op_function(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = bound.arguments
        attr_values = {a.name: values[_python_name(a.name)] for a in attrs
                       if values[_python_name(a.name)] is not None}
        inputs = _convert_inputs(op_def, values, attr_values)
        operation = framework.create_operation(op_def.name, inputs, attr_values,
                                               name=values["name"])
        return _group_outputs(op_def, operation)

    op_function.__name__ = op_def.name if keyword_only else snake_case(op_def.name)
    op_function.__qualname__ = op_function.__name__
    op_function.__signature__ = signature
    op_function.__doc__ = f"Adds a {op_def.name} node. {op_def.summary}".strip()
    return op_function


_cache = {}


def _function_for(python_name, keyword_only):
    key = (python_name, keyword_only)
    if key not in _cache:
        for op_def in framework.op_defs().values():
            if (op_def.name if keyword_only else snake_case(op_def.name)) == python_name:
                _cache[key] = make_op_function(op_def, keyword_only)
                break
        else:
            raise AttributeError(f"no registered op is called '{python_name}'")
    return _cache[key]


def __getattr__(name):  # the functions are made on first use
    if name.startswith("__"):
        raise AttributeError(name)
    return _function_for(name, keyword_only=False)


def __dir__():
    return sorted(snake_case(name) for name in framework.op_defs())


class _RawOps:
    """tessera.raw_ops: every op under its own name, keyword arguments only."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _function_for(name, keyword_only=True)

    def __dir__(self):
        return sorted(framework.op_defs())


raw_ops = _RawOps()
sys.modules[__name__].raw_ops = raw_ops
