"""Tessera's Python package, on Tessera's TensorFlow-compatible C API (libtessera_c).

    import tessera
    with tessera.Session("model.pb") as session:
        probabilities = session.run("probabilities:0", {"x:0": points})

Graphs are built with the functions generated from the op registry (`tessera.ops`, with
TensorFlow's argument and attr names; `tessera.raw_ops` by op name) or imported from GraphDefs;
`tessera.compat.v1` is the TF1-style layer (placeholder, Variable, gradients, optimizers,
Session) that lets a TF1 script run by changing its import."""
from tessera import dtypes
from tessera import errors
from tessera import ops
from tessera._c import lib as _lib
from tessera._tensors import aligned_empty
from tessera.dtypes import (as_dtype, bfloat16, bool, complex64, complex128, DType, float16,
                            float32, float64, int8, int16, int32, int64, string, uint8, uint16,
                            uint32, uint64)
from tessera.framework import (constant, convert_to_tensor, get_default_graph, Graph, Operation,
                               reset_default_graph, Tensor)
from tessera.ops import raw_ops
from tessera.session import (DeviceAttributes, load_plugin, plugins, RunMetadata, RunOptions,
                             Session)

__version__ = _lib.TF_Version().decode()
