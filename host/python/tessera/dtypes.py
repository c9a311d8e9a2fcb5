"""Data types, numbered as TensorFlow's (and Tessera's) DataType enum, with their numpy types."""
import numpy as np


class DType:
    """A tensor's element type: `as_datatype_enum` is TensorFlow's number, `name` its name."""

    def __init__(self, enum, name, numpy_type):
        self.as_datatype_enum = enum
        self.name = name
        self.as_numpy_dtype = numpy_type

    @property
    def is_floating(self):
        return self.name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_integer(self):
        return self.name.startswith("int") or self.name.startswith("uint")

    @property
    def base_dtype(self):
        return self

    def __eq__(self, other):
        try:
            return self.as_datatype_enum == as_dtype(other).as_datatype_enum
        except TypeError:
            return False

    def __hash__(self):
        return self.as_datatype_enum

    def __repr__(self):
        return "tessera." + self.name


float32 = DType(1, "float32", np.float32)
float64 = DType(2, "float64", np.float64)
int32 = DType(3, "int32", np.int32)
uint8 = DType(4, "uint8", np.uint8)
int16 = DType(5, "int16", np.int16)
int8 = DType(6, "int8", np.int8)
string = DType(7, "string", np.object_)
complex64 = DType(8, "complex64", np.complex64)
int64 = DType(9, "int64", np.int64)
bool = DType(10, "bool", np.bool_)  # pylint: disable=redefined-builtin
bfloat16 = DType(14, "bfloat16", None)
uint16 = DType(17, "uint16", np.uint16)
complex128 = DType(18, "complex128", np.complex128)
float16 = DType(19, "float16", np.float16)
resource = DType(20, "resource", None)
variant = DType(21, "variant", None)
uint32 = DType(22, "uint32", np.uint32)
uint64 = DType(23, "uint64", np.uint64)
half = float16
double = float64

_ALL = [float32, float64, int32, uint8, int16, int8, string, complex64, int64, bool, bfloat16,
        uint16, complex128, float16, resource, variant, uint32, uint64]
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "double": float64, "float": float32})


def as_dtype(value):
    """A DType from a DType, an enum number (a ref type's too), a name or a numpy type."""
    if isinstance(value, DType):
        return value
    if isinstance(value, int) and not isinstance(value, type(True)):
        enum = value - 100 if value > 100 else value  # float_ref reads as float
        if enum in _BY_ENUM:
            return _BY_ENUM[enum]
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        numpy_type = np.dtype(value)
    except TypeError:
        numpy_type = None
    if numpy_type is not None:
        if numpy_type.kind in ("S", "U", "O"):
            return string
        for d in _ALL:
            if d.as_numpy_dtype is not None and np.dtype(d.as_numpy_dtype) == numpy_type:
                return d
    raise TypeError(f"cannot convert {value!r} to a tessera data type")
