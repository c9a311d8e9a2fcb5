"""The ctypes declarations of Tessera's C API (libtessera_c, TensorFlow's c_api.h).

Only this module touches ctypes; the rest of the package works with the classes built on it.
"""
import ctypes
import os

from tessera import errors

_LIBRARY_NAME = "libtessera_c.so.0"


def _library_path():
    """TESSERA_C_LIBRARY, else the library of the tree this package sits in, else the system's."""
    explicit = os.environ.get("TESSERA_C_LIBRARY")
    if explicit:
        return explicit
    here = os.path.dirname(os.path.abspath(__file__))
    # The build tree: build/python/tessera and build/lib. An install: P/lib/python3/dist-packages/
    # tessera and P/lib (or P/lib/<multiarch>).
    for relative in (("..", "..", "lib"), ("..", "..", ".."), ("..", "..", "..", "..", "lib")):
        candidate = os.path.normpath(os.path.join(here, *relative, _LIBRARY_NAME))
        if os.path.exists(candidate):
            return candidate
    return _LIBRARY_NAME


lib = ctypes.CDLL(_library_path())

c_int64_p = ctypes.POINTER(ctypes.c_int64)


class TF_Output(ctypes.Structure):
    _fields_ = [("oper", ctypes.c_void_p), ("index", ctypes.c_int)]


class TF_Input(ctypes.Structure):
    _fields_ = [("oper", ctypes.c_void_p), ("index", ctypes.c_int)]


class TF_Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t),
                ("data_deallocator", ctypes.c_void_p)]


class TF_TString(ctypes.Structure):
    _fields_ = [("raw", ctypes.c_char * 24)]


DEALLOCATOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_I = ctypes.c_int
_SZ = ctypes.c_size_t

_FUNCTIONS = {
    # name: (restype, argtypes)
    "TF_Version": (_S, []),
    "TF_NewStatus": (_P, []),
    "TF_DeleteStatus": (None, [_P]),
    "TF_GetCode": (_I, [_P]),
    "TF_Message": (_S, [_P]),
    "TF_NewBuffer": (ctypes.POINTER(TF_Buffer), []),
    "TF_NewBufferFromString": (ctypes.POINTER(TF_Buffer), [_P, _SZ]),
    "TF_DeleteBuffer": (None, [ctypes.POINTER(TF_Buffer)]),
    "TF_DataTypeSize": (_SZ, [_I]),
    "TF_NewTensor": (_P, [_I, c_int64_p, _I, _P, _SZ, DEALLOCATOR, _P]),
    "TF_AllocateTensor": (_P, [_I, c_int64_p, _I, _SZ]),
    "TF_DeleteTensor": (None, [_P]),
    "TF_TensorMaybeMove": (_P, [_P]),
    "TF_TensorType": (_I, [_P]),
    "TF_NumDims": (_I, [_P]),
    "TF_Dim": (ctypes.c_int64, [_P, _I]),
    "TF_TensorByteSize": (_SZ, [_P]),
    "TF_TensorData": (_P, [_P]),
    "TF_TensorElementCount": (ctypes.c_int64, [_P]),
    "TF_StringInit": (None, [_P]),
    "TF_StringCopy": (None, [_P, _P, _SZ]),
    "TF_StringGetDataPointer": (_P, [_P]),
    "TF_StringGetSize": (_SZ, [_P]),
    "TF_StringDealloc": (None, [_P]),
    "TF_NewGraph": (_P, []),
    "TF_DeleteGraph": (None, [_P]),
    "TF_GraphOperationByName": (_P, [_P, _S]),
    "TF_GraphNextOperation": (_P, [_P, ctypes.POINTER(_SZ)]),
    "TF_GraphToGraphDef": (None, [_P, ctypes.POINTER(TF_Buffer), _P]),
    "TF_GraphGetTensorNumDims": (_I, [_P, TF_Output, _P]),
    "TF_GraphGetTensorShape": (None, [_P, TF_Output, c_int64_p, _I, _P]),
    "TF_GraphSetTensorShape": (None, [_P, TF_Output, c_int64_p, _I, _P]),
    "TF_NewOperation": (_P, [_P, _S, _S]),
    "TF_SetDevice": (None, [_P, _S]),
    "TF_AddInput": (None, [_P, TF_Output]),
    "TF_AddInputList": (None, [_P, ctypes.POINTER(TF_Output), _I]),
    "TF_AddControlInput": (None, [_P, _P]),
    "TF_SetAttrString": (None, [_P, _S, _P, _SZ]),
    "TF_SetAttrStringList": (None, [_P, _S, ctypes.POINTER(_P), ctypes.POINTER(_SZ), _I]),
    "TF_SetAttrInt": (None, [_P, _S, ctypes.c_int64]),
    "TF_SetAttrIntList": (None, [_P, _S, c_int64_p, _I]),
    "TF_SetAttrFloat": (None, [_P, _S, ctypes.c_float]),
    "TF_SetAttrFloatList": (None, [_P, _S, ctypes.POINTER(ctypes.c_float), _I]),
    "TF_SetAttrBool": (None, [_P, _S, ctypes.c_ubyte]),
    "TF_SetAttrBoolList": (None, [_P, _S, ctypes.POINTER(ctypes.c_ubyte), _I]),
    "TF_SetAttrType": (None, [_P, _S, _I]),
    "TF_SetAttrTypeList": (None, [_P, _S, ctypes.POINTER(_I), _I]),
    "TF_SetAttrFuncName": (None, [_P, _S, _S, _SZ]),
    "TF_SetAttrShape": (None, [_P, _S, c_int64_p, _I]),
    "TF_SetAttrShapeList": (None, [_P, _S, ctypes.POINTER(c_int64_p), ctypes.POINTER(_I), _I]),
    "TF_SetAttrTensor": (None, [_P, _S, _P, _P]),
    "TF_SetAttrValueProto": (None, [_P, _S, _P, _SZ, _P]),
    "TF_FinishOperation": (_P, [_P, _P]),
    "TF_OperationName": (_S, [_P]),
    "TF_OperationOpType": (_S, [_P]),
    "TF_OperationDevice": (_S, [_P]),
    "TF_OperationNumOutputs": (_I, [_P]),
    "TF_OperationOutputType": (_I, [TF_Output]),
    "TF_OperationNumInputs": (_I, [_P]),
    "TF_OperationOutputListLength": (_I, [_P, _S, _P]),
    "TF_OperationInput": (TF_Output, [TF_Input]),
    "TF_OperationGetAttrValueProto": (None, [_P, _S, ctypes.POINTER(TF_Buffer), _P]),
    "TF_GraphImportGraphDef": (None, [_P, ctypes.POINTER(TF_Buffer), _P, _P]),
    "TF_NewImportGraphDefOptions": (_P, []),
    "TF_DeleteImportGraphDefOptions": (None, [_P]),
    "TF_ImportGraphDefOptionsSetPrefix": (None, [_P, _S]),
    "TF_AddGradientsWithPrefix": (None, [_P, _S, ctypes.POINTER(TF_Output), _I,
                                         ctypes.POINTER(TF_Output), _I, ctypes.POINTER(TF_Output),
                                         _P, ctypes.POINTER(TF_Output)]),
    "TF_NewSessionOptions": (_P, []),
    "TF_SetTarget": (None, [_P, _S]),
    "TF_SetConfig": (None, [_P, _P, _SZ, _P]),
    "TF_DeleteSessionOptions": (None, [_P]),
    "TF_NewSession": (_P, [_P, _P, _P]),
    "TF_CloseSession": (None, [_P, _P]),
    "TF_DeleteSession": (None, [_P, _P]),
    "TF_SessionRun": (None, [_P, ctypes.POINTER(TF_Buffer), ctypes.POINTER(TF_Output),
                             ctypes.POINTER(_P), _I, ctypes.POINTER(TF_Output), ctypes.POINTER(_P),
                             _I, ctypes.POINTER(_P), _I, ctypes.POINTER(TF_Buffer), _P]),
    "TF_SessionListDevices": (_P, [_P, _P]),
    "TF_DeleteDeviceList": (None, [_P]),
    "TF_DeviceListCount": (_I, [_P]),
    "TF_DeviceListName": (_S, [_P, _I, _P]),
    "TF_DeviceListType": (_S, [_P, _I, _P]),
    "TF_DeviceListMemoryBytes": (ctypes.c_int64, [_P, _I, _P]),
    "TF_GetAllOpList": (ctypes.POINTER(TF_Buffer), []),
    "TF_LoadPluggableDeviceLibrary": (_P, [_S, _P]),
    "TF_DeletePluggableDeviceLibraryHandle": (None, [_P]),
    "TESSERA_PluginsJson": (ctypes.POINTER(TF_Buffer), [_P]),
}

for _name, (_restype, _argtypes) in _FUNCTIONS.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes


class Status:
    """A TF_Status that raises the matching tessera.errors exception when it holds an error."""

    def __init__(self):
        self.ptr = lib.TF_NewStatus()

    def __del__(self):
        if getattr(self, "ptr", None) and lib is not None:
            lib.TF_DeleteStatus(self.ptr)
            self.ptr = None

    def check(self):
        code = lib.TF_GetCode(self.ptr)
        if code != 0:
            raise errors.from_code(code, lib.TF_Message(self.ptr).decode("utf-8", "replace"))


def buffer_bytes(buffer):
    """The bytes a TF_Buffer* holds."""
    if not buffer or not buffer.contents.data:
        return b""
    return ctypes.string_at(buffer.contents.data, buffer.contents.length)


def call_with_status(function, *args):
    """Calls `function(*args, status)` and raises on error; returns its result."""
    status = Status()
    result = function(*args, status.ptr)
    status.check()
    return result
