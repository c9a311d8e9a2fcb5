"""The TF1-style layer: what common TensorFlow 1 scripts use, so that such a script runs after
changing only its import:

    import tessera.compat.v1 as tf

    x = tf.placeholder(tf.float32, [None, 64])
    w = tf.Variable(tf.truncated_normal([64, 10], stddev=0.1))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x @ w))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        session.run(train, {x: images, y: labels})

Everything here is built from the generated op functions (`tessera.ops`) and TF_AddGradients.
"""
import builtins as _builtins
import types as _types

import numpy as _np

from tessera import ops as _ops
from tessera.dtypes import (as_dtype, bfloat16, bool, complex64, complex128, DType, float16,
                            float32, float64, int8, int16, int32, int64, string, uint8, uint16,
                            uint32, uint64)
from tessera.framework import (constant, convert_to_tensor, get_default_graph, Graph, Operation,
                               reset_default_graph, Tensor)
from tessera import framework as _framework
from tessera import _c
from tessera.session import RunMetadata, RunOptions, Session

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"


class GraphKeys:
    GLOBAL_VARIABLES = GLOBAL_VARIABLES
    TRAINABLE_VARIABLES = TRAINABLE_VARIABLES


def _tensor(value, dtype=None):
    return _framework.convert_to_tensor(value, dtype)


def _int_list(values):
    return _framework.constant(_np.asarray(values, dtype=_np.int32))


# ---- Graph-building basics ---------------------------------------------------------------------

def placeholder(dtype, shape=None, name=None):
    return _ops.placeholder(dtype=as_dtype(dtype), shape=shape, name=name or "Placeholder")


def placeholder_with_default(input, shape, name=None):  # pylint: disable=redefined-builtin
    return _ops.placeholder_with_default(input, shape=shape, name=name)


def identity(input, name=None):  # pylint: disable=redefined-builtin
    return _ops.identity(input, name=name)


def name_scope(name):
    return get_default_graph().name_scope(name)


def device(device_name):
    return get_default_graph().device(device_name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def no_op(name=None):
    return _ops.no_op(name=name)


def group(*inputs, name=None):
    """An operation that runs after all of `inputs`."""
    flat = []
    for item in inputs:
        flat.extend(item if isinstance(item, (list, tuple)) else [item])
    with control_dependencies(flat):
        return _ops.no_op(name=name or "group_deps")


def zeros(shape, dtype=float32, name=None):
    return _framework.constant(0, dtype=dtype, shape=shape, name=name or "zeros")


def ones(shape, dtype=float32, name=None):
    return _framework.constant(1, dtype=dtype, shape=shape, name=name or "ones")


def zeros_like(tensor, name=None):
    return _ops.zeros_like(tensor, name=name)


def ones_like(tensor, name=None):
    return _ops.ones_like(tensor, name=name)


def fill(dims, value, name=None):
    return _ops.fill(_int_list(dims), value, name=name)


def cast(x, dtype, name=None):
    return _ops.cast(x, DstT=as_dtype(dtype), name=name)


def reshape(tensor, shape, name=None):
    return _ops.reshape(tensor, _int_list(shape), name=name)


def transpose(a, perm=None, name=None):
    if perm is None:
        rank = len(_framework.as_tensor(a).shape or [])
        perm = list(reversed(range(rank)))
    return _ops.transpose(a, _int_list(perm), name=name)


def concat(values, axis, name=None):
    return _ops.concat_v2(values, _int_list(axis), name=name)


def shape(input, name=None, out_type=int32):  # pylint: disable=redefined-builtin
    return _ops.shape(input, out_type=out_type, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    return _ops.mat_mul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, name=name)


def add(x, y, name=None):
    return _ops.add_v2(x, y, name=name)


def subtract(x, y, name=None):
    return _ops.sub(x, y, name=name)


def multiply(x, y, name=None):
    return _ops.mul(x, y, name=name)


def divide(x, y, name=None):
    return _ops.real_div(x, y, name=name)


def square(x, name=None):
    return _ops.square(x, name=name)


def sqrt(x, name=None):
    return _ops.sqrt(x, name=name)


def exp(x, name=None):
    return _ops.exp(x, name=name)


def log(x, name=None):
    return _ops.log(x, name=name)


def equal(x, y, name=None):
    return _ops.equal(x, y, name=name)


def argmax(input, axis=None, name=None, output_type=int64):  # pylint: disable=redefined-builtin
    return _ops.arg_max(input, _int_list(0 if axis is None else axis), output_type=output_type,
                        name=name)


def _reduction(op, input_tensor, axis, keepdims, name):
    tensor = _framework.as_tensor(_tensor(input_tensor))
    if axis is None:
        if tensor.shape is None:  # every axis, whatever the rank at run time
            axes = _ops.range(_tensor(0), _ops.rank(tensor), _tensor(1))
        else:
            axes = _int_list(list(range(len(tensor.shape))))
    else:
        axes = _int_list(axis)
    return op(tensor, axes, keep_dims=_builtins.bool(keepdims), name=name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    return _reduction(_ops.mean, input_tensor, axis, keepdims, name)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    return _reduction(_ops.sum, input_tensor, axis, keepdims, name)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    return _reduction(_ops.max, input_tensor, axis, keepdims, name)


# ---- Random values -----------------------------------------------------------------------------

def random_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    value = _ops.random_standard_normal(_int_list(shape), dtype=dtype, seed=seed or 0,
                                        seed2=0 if seed is None else seed + 1)
    return _ops.add_v2(_ops.mul(value, _tensor(stddev, dtype)), _tensor(mean, dtype), name=name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    value = _ops.truncated_normal(_int_list(shape), dtype=dtype, seed=seed or 0,
                                  seed2=0 if seed is None else seed + 1)
    return _ops.add_v2(_ops.mul(value, _tensor(stddev, dtype)), _tensor(mean, dtype), name=name)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=float32, seed=None, name=None):
    value = _ops.random_uniform(_int_list(shape), dtype=dtype, seed=seed or 0,
                                seed2=0 if seed is None else seed + 1)
    scale = _ops.sub(_tensor(maxval, dtype), _tensor(minval, dtype))
    return _ops.add_v2(_ops.mul(value, scale), _tensor(minval, dtype), name=name)


# ---- Variables ---------------------------------------------------------------------------------

class Variable:
    """A TF1 variable: a VariableV2 node holding its value across runs, an `initializer` that
    assigns `initial_value`, and a `value()` read."""

    def __init__(self, initial_value, trainable=True, name=None, dtype=None, validate_shape=True):
        graph = get_default_graph()
        with graph.name_scope(name or "Variable") as scope:
            initial = _tensor(initial_value, dtype)
            shape = initial.shape if validate_shape else None
            # The node takes the scope's own name, as TensorFlow names variables.
            self._variable = _framework.create_operation(
                "VariableV2", [], {"dtype": initial.dtype, "shape": shape}, name=scope,
                graph=graph, exact_name=True)
            self._ref = self._variable.outputs[0]
            self.initializer = _ops.assign(self._ref, initial, validate_shape=validate_shape,
                                           name="Assign").op
            self.initial_value = initial
        self.trainable = trainable
        graph.add_to_collection(GLOBAL_VARIABLES, self)
        if trainable:
            graph.add_to_collection(TRAINABLE_VARIABLES, self)

    def _as_graph_tensor(self):
        return self._ref

    @property
    def name(self):
        return self._ref.name

    @property
    def op(self):
        return self._variable

    @property
    def dtype(self):
        return self._ref.dtype

    @property
    def shape(self):
        return self._ref.shape

    @property
    def graph(self):
        return self._ref.graph

    def value(self):
        return _ops.identity(self._ref)

    def read_value(self):
        return self.value()

    def assign(self, value, name=None):
        return _ops.assign(self._ref, _tensor(value, self.dtype), name=name)

    def assign_add(self, delta, name=None):
        return _ops.assign_add(self._ref, _tensor(delta, self.dtype), name=name)

    def assign_sub(self, delta, name=None):
        return _ops.assign_sub(self._ref, _tensor(delta, self.dtype), name=name)

    def eval(self, session):
        return session.run(self._ref)

    def __repr__(self):
        return f"<tessera.compat.v1.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    # Arithmetic reads the value, as a TF1 variable does.
    __add__ = lambda self, other: self._ref + other
    __radd__ = lambda self, other: other + self._ref
    __sub__ = lambda self, other: self._ref - other
    __rsub__ = lambda self, other: _framework._binary("Sub", other, self._ref)
    __mul__ = lambda self, other: self._ref * other
    __rmul__ = lambda self, other: other * self._ref
    __truediv__ = lambda self, other: self._ref / other
    __matmul__ = lambda self, other: self._ref @ other
    __neg__ = lambda self: -self._ref


def global_variables():
    return get_default_graph().get_collection(GLOBAL_VARIABLES)


def trainable_variables():
    return get_default_graph().get_collection(TRAINABLE_VARIABLES)


def variables_initializer(var_list, name="init"):
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer():
    return variables_initializer(global_variables())


def assign(ref, value, name=None):
    return _ops.assign(ref, value, name=name)


def assign_add(ref, value, name=None):
    return _ops.assign_add(ref, value, name=name)


# ---- Gradients ---------------------------------------------------------------------------------

def gradients(ys, xs, grad_ys=None, name="gradients"):
    """d(sum of ys)/d(xs), through TF_AddGradients: one Tensor per x."""
    import ctypes
    ys_list = ys if isinstance(ys, (list, tuple)) else [ys]
    xs_list = xs if isinstance(xs, (list, tuple)) else [xs]
    ys_t = [_framework.as_tensor(_tensor(y)) for y in ys_list]
    xs_t = [_framework.as_tensor(x) for x in xs_list]
    graph = ys_t[0].graph
    y_out = (_c.TF_Output * len(ys_t))(*[t._as_output() for t in ys_t])
    x_out = (_c.TF_Output * len(xs_t))(*[t._as_output() for t in xs_t])
    dx = None
    if grad_ys is not None:
        grad_list = grad_ys if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        dx = (_c.TF_Output * len(ys_t))(*[
            _tensor(g, y.dtype)._as_output() for g, y in zip(grad_list, ys_t)])
    dy = (_c.TF_Output * len(xs_t))()
    prefix = None if name in (None, "gradients") else graph.unique_name(name).encode()
    status = _c.Status()  # TF_AddGradients takes the status before its last argument
    _c.lib.TF_AddGradientsWithPrefix(graph._ptr, prefix, y_out, len(ys_t), x_out, len(xs_t), dx,
                                     status.ptr, dy)
    status.check()
    result = []
    for output in dy:
        operation = graph._wrap(output.oper)
        result.append(operation.outputs[output.index])
    return result


# ---- Neural-network ops ------------------------------------------------------------------------

def _relu(features, name=None):
    return _ops.relu(features, name=name)


def _softmax(logits, name=None):
    return _ops.softmax(logits, name=name)


def _sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    loss, _ = _ops.sparse_softmax_cross_entropy_with_logits(logits, labels, name=name)
    return loss


def _softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    loss, _ = _ops.softmax_cross_entropy_with_logits(logits, labels, name=name)
    return loss


def _bias_add(value, bias, name=None):
    return _ops.bias_add(value, bias, name=name)


nn = _types.SimpleNamespace(
    relu=_relu, softmax=_softmax, bias_add=_bias_add,
    sigmoid=lambda x, name=None: _ops.sigmoid(x, name=name),
    tanh=lambda x, name=None: _ops.tanh(x, name=name),
    sparse_softmax_cross_entropy_with_logits=_sparse_softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits=_softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2=_softmax_cross_entropy_with_logits,
    l2_loss=lambda t, name=None: _ops.l2_loss(t, name=name),
)


# ---- Optimizers --------------------------------------------------------------------------------

class Optimizer:
    """minimize(loss) = apply_gradients(compute_gradients(loss)), over the trainable variables."""

    def __init__(self, name):
        self._name = name

    def compute_gradients(self, loss, var_list=None):
        var_list = list(var_list if var_list is not None else trainable_variables())
        if not var_list:
            raise ValueError("no variables to optimize")
        grads = gradients(loss, var_list)
        return list(zip(grads, var_list))

    def minimize(self, loss, var_list=None, global_step=None, name=None):
        return self.apply_gradients(self.compute_gradients(loss, var_list), global_step,
                                    name=name)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        with name_scope(name or self._name):
            updates = self._apply(list(grads_and_vars))
            if global_step is not None:
                with control_dependencies(updates):
                    updates = [assign_add(global_step, _tensor(1, global_step.dtype))]
            return group(*updates, name="update")

    def _slot(self, var, slot_name):
        with name_scope(slot_name):
            return Variable(zeros(var.shape, dtype=var.dtype), trainable=False,
                            name=f"{var.op.name}_{slot_name}".replace("/", "_"))


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, name="GradientDescent"):
        super().__init__(name)
        self._lr = learning_rate

    def _apply(self, grads_and_vars):
        return [_ops.apply_gradient_descent(var, _tensor(self._lr, var.dtype), grad).op
                for grad, var in grads_and_vars]


class MomentumOptimizer(Optimizer):
    def __init__(self, learning_rate, momentum, use_nesterov=False, name="Momentum"):
        super().__init__(name)
        self._lr, self._momentum, self._nesterov = learning_rate, momentum, use_nesterov

    def _apply(self, grads_and_vars):
        updates = []
        for grad, var in grads_and_vars:
            accum = self._slot(var, "Momentum")
            updates.append(_ops.apply_momentum(
                var, accum, _tensor(self._lr, var.dtype), grad,
                _tensor(self._momentum, var.dtype), use_nesterov=self._nesterov).op)
        return updates


class AdamOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, name="Adam"):
        super().__init__(name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _apply(self, grads_and_vars):
        dtype = grads_and_vars[0][1].dtype
        beta1_power = Variable(_tensor(self._beta1, dtype), trainable=False, name="beta1_power")
        beta2_power = Variable(_tensor(self._beta2, dtype), trainable=False, name="beta2_power")
        updates = []
        for grad, var in grads_and_vars:
            m = self._slot(var, "Adam")
            v = self._slot(var, "Adam_1")
            updates.append(_ops.apply_adam(
                var, m, v, beta1_power, beta2_power, _tensor(self._lr, dtype),
                _tensor(self._beta1, dtype), _tensor(self._beta2, dtype),
                _tensor(self._epsilon, dtype), grad).op)
        with control_dependencies(updates):
            updates = [beta1_power.assign(beta1_power * self._beta1).op,
                       beta2_power.assign(beta2_power * self._beta2).op]
        return updates


train = _types.SimpleNamespace(
    Optimizer=Optimizer, GradientDescentOptimizer=GradientDescentOptimizer,
    MomentumOptimizer=MomentumOptimizer, AdamOptimizer=AdamOptimizer,
)


def disable_eager_execution():
    """Graphs are the only mode: nothing to disable."""


def disable_v2_behavior():
    """Graphs are the only mode: nothing to disable."""
