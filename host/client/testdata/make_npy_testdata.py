"""Writes the small .npy files that npy_test.cc reads (run with a Python that has numpy)."""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def save(name, array, version=None):
    with open(os.path.join(here, name), "wb") as f:
        np.lib.format.write_array(f, array, version=version, allow_pickle=False)


save("float32_2x3.npy", np.arange(6, dtype=np.float32).reshape(2, 3) / 2)
save("int64_big_endian.npy", np.array([1, -2, 300000000000], dtype=">i8"))
save("float64_fortran_2x3.npy", np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
save("int32_v2.npy", np.array([[7, 8], [9, 10]], dtype=np.int32), version=(2, 0))
save("uint16_v3.npy", np.array([1, 65535], dtype=np.uint16), version=(3, 0))
save("bool_scalar.npy", np.array(True))
save("empty_0x3.npy", np.zeros((0, 3), dtype=np.float32))
