"""numpy arrays to and from TF_Tensor: without a copy where the memory allows."""
import ctypes
import itertools

import numpy as np

from tessera import _c
from tessera import dtypes

_ALIGNMENT = 64  # what the runtime needs to use fed bytes in place

# Arrays whose memory a TF_Tensor uses, kept alive until the runtime gives the memory back (dict
# operations are atomic under the GIL, which the deallocator holds when the runtime calls it).
_lent = {}
_lent_keys = itertools.count(1)


def _give_back(data, length, key):
    _lent.pop(key, None)


_GIVE_BACK = _c.DEALLOCATOR(_give_back)


def _dims(shape):
    return (ctypes.c_int64 * max(1, len(shape)))(*shape)


def aligned_empty(shape, dtype=np.float32):
    """An uninitialised numpy array whose data is aligned to 64 bytes, so that feeding it shares
    its memory instead of copying it."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.empty(count * dtype.itemsize + _ALIGNMENT, dtype=np.uint8)
    offset = (-raw.ctypes.data) % _ALIGNMENT
    return raw[offset:offset + count * dtype.itemsize].view(dtype).reshape(shape)


def lend_array(array, tf_type):
    """A new TF_Tensor over a C-contiguous numpy array of the TF type `tf_type`, lent (the
    runtime copies it if it is not 64-byte aligned); the array lives until the tensor's memory is
    given back."""
    shape = array.shape
    dims = _dims(shape)
    key = next(_lent_keys)
    _lent[key] = array
    tensor = _c.lib.TF_NewTensor(tf_type, dims, len(shape), array.ctypes.data, array.nbytes,
                                 _GIVE_BACK, key)
    if not tensor:
        raise ValueError(f"cannot make a tensor of shape {shape} and type {array.dtype}")
    return tensor


def to_tf_tensor(value, dtype=None):
    """A new TF_Tensor (owned by the caller) holding `value`. A C-contiguous numpy array of the
    right type is lent, not copied (the runtime copies it if it is not 64-byte aligned)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if dtype is not None and dtype == dtypes.string or (
            dtype is None and _is_string_like(value)):
        return _string_tensor(value)
    numpy_type = None if dtype is None else dtype.as_numpy_dtype
    if dtype is not None and numpy_type is None:
        raise TypeError(f"tensors of type {dtype.name} cannot be made from Python values")
    array = np.asarray(value, dtype=numpy_type)
    if array.dtype == np.float64 and dtype is None and not isinstance(value, np.ndarray):
        array = array.astype(np.float32)  # Python floats become float32, as in TensorFlow
    if array.dtype == np.int64 and dtype is None and not isinstance(value, np.ndarray):
        array = array.astype(np.int32)  # and Python ints int32
    if array.dtype.kind in ("U", "S", "O"):
        return _string_tensor(array)
    tf_type = dtypes.as_dtype(array.dtype).as_datatype_enum
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # (np.ascontiguousarray would make a scalar 1-D)
    return lend_array(array, tf_type)


def _is_string_like(value):
    if isinstance(value, (bytes, str)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in ("U", "S", "O")
    if isinstance(value, (list, tuple)) and value:
        return _is_string_like(value[0])
    return False


def _string_tensor(value):
    array = np.asarray(value, dtype=object)
    flat = array.reshape(-1)
    dims = _dims(array.shape)
    size = ctypes.sizeof(_c.TF_TString)
    tensor = _c.lib.TF_AllocateTensor(dtypes.string.as_datatype_enum, dims, array.ndim,
                                      flat.size * size)
    if not tensor:
        raise ValueError(f"cannot make a string tensor of shape {array.shape}")
    base = _c.lib.TF_TensorData(tensor) or 0
    for i, element in enumerate(flat):
        data = element.encode() if isinstance(element, str) else bytes(element)
        _c.lib.TF_StringCopy(ctypes.c_void_p(base + i * size), data, len(data))
    return tensor


_TYPESTR = {d.name: np.dtype(d.as_numpy_dtype).str for d in dtypes._ALL
            if d.as_numpy_dtype is not None and d.name != "string"}


class _TensorOwner:
    """Owns a fetched TF_Tensor; a numpy array over its memory keeps it as its base."""

    def __init__(self, tensor, shape, typestr):
        self.tensor = tensor
        data = _c.lib.TF_TensorData(tensor)
        self.__array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "version": 3,
            "data": (data or 0, False)}

    def __del__(self):
        if self.tensor and _c.lib is not None:
            _c.lib.TF_DeleteTensor(self.tensor)
            self.tensor = None


def from_tf_tensor(tensor, dtype=None):
    """A numpy array over a TF_Tensor the caller owned (ownership passes to the array). Fixed-size
    types are not copied; strings become an array of bytes objects. `dtype`, when known, saves
    asking the tensor."""
    lib = _c.lib
    rank = lib.TF_NumDims(tensor)
    shape = [lib.TF_Dim(tensor, i) for i in range(rank)]
    if dtype is None:
        dtype = dtypes.as_dtype(lib.TF_TensorType(tensor))
    numpy_type = dtype.as_numpy_dtype
    if numpy_type is not None and dtype.as_datatype_enum != 7:
        data = lib.TF_TensorData(tensor)
        if data and not lib.TF_TensorMaybeMove(tensor):
            # The runtime still uses the buffer (a variable's value): the array gets a copy, as
            # TensorFlow's Python does, so neither side sees the other's later writes.
            count = 1
            for d in shape:
                count *= d
            view = np.ctypeslib.as_array(
                (ctypes.c_char * (count * np.dtype(numpy_type).itemsize)).from_address(data))
            array = view.view(numpy_type).reshape(shape).copy()
            lib.TF_DeleteTensor(tensor)
            return array
        if data:
            owner = _TensorOwner.__new__(_TensorOwner)
            owner.tensor = tensor
            owner.__array_interface__ = {"shape": tuple(shape), "typestr": _TYPESTR[dtype.name],
                                         "version": 3, "data": (data, False)}
            return np.asarray(owner)
    if dtype == dtypes.string:
        count = _c.lib.TF_TensorElementCount(tensor)
        base = _c.lib.TF_TensorData(tensor) or 0
        size = ctypes.sizeof(_c.TF_TString)
        values = np.empty(count, dtype=object)
        for i in range(count):
            element = ctypes.c_void_p(base + i * size)
            values[i] = ctypes.string_at(_c.lib.TF_StringGetDataPointer(element),
                                         _c.lib.TF_StringGetSize(element))
        _c.lib.TF_DeleteTensor(tensor)
        return values.reshape(shape)
    if dtype.as_numpy_dtype is None:
        _c.lib.TF_DeleteTensor(tensor)
        raise TypeError(f"a tensor of type {dtype.name} has no numpy form")
    if _c.lib.TF_TensorElementCount(tensor) == 0:
        _c.lib.TF_DeleteTensor(tensor)
        return np.zeros(shape, dtype=dtype.as_numpy_dtype)
    owner = _TensorOwner(tensor, shape, np.dtype(dtype.as_numpy_dtype).str)
    return np.asarray(owner)
