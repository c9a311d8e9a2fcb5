/* tessera._fastrun: one step of a session with numpy arrays in and out, in C, for the Python
 * package's Session.run. It makes the same C API calls as the package's ctypes path (TF_NewTensor
 * over each fed array, TF_SessionRun, numpy arrays over the fetched TF_Tensors), without the cost
 * of one ctypes call per C call. The package uses it when it is built and falls back to ctypes
 * otherwise. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <string.h>

#include "tensorflow/c/c_api.h"

#define MAX_ARGS 1024

/* Called when the runtime gives a lent array's memory back: drops the reference taken when the
 * array was lent. The runtime may call it from any thread. */
static void ReleaseArray(void* data, size_t length, void* array) {
  (void)data;
  (void)length;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject*)array);
  PyGILState_Release(gil);
}

static void DeleteTensorCapsule(PyObject* capsule) {
  TF_DeleteTensor((TF_Tensor*)PyCapsule_GetPointer(capsule, "TF_Tensor"));
}

/* A numpy array over `tensor`, which it owns from now on (through a capsule as its base). */
static PyObject* WrapTensor(TF_Tensor* tensor, int typenum) {
  npy_intp dims[NPY_MAXDIMS];
  const int rank = TF_NumDims(tensor);
  if (rank > NPY_MAXDIMS) {
    TF_DeleteTensor(tensor);
    PyErr_SetString(PyExc_ValueError, "a fetched tensor has more dimensions than numpy allows");
    return NULL;
  }
  for (int i = 0; i < rank; ++i) dims[i] = (npy_intp)TF_Dim(tensor, i);
  void* data = TF_TensorData(tensor);
  if (data == NULL) {  /* no elements */
    TF_DeleteTensor(tensor);
    return PyArray_ZEROS(rank, dims, typenum, 0);
  }
  if (TF_TensorMaybeMove(tensor) == NULL) {
    /* The runtime still uses the buffer (a variable's value): the array gets a copy, as
     * TensorFlow's Python does, so neither side sees the other's later writes. */
    PyObject* copy = PyArray_SimpleNew(rank, dims, typenum);
    if (copy != NULL) memcpy(PyArray_DATA((PyArrayObject*)copy), data, TF_TensorByteSize(tensor));
    TF_DeleteTensor(tensor);
    return copy;
  }
  PyObject* array = PyArray_SimpleNewFromData(rank, dims, typenum, data);
  if (array == NULL) {
    TF_DeleteTensor(tensor);
    return NULL;
  }
  PyObject* capsule = PyCapsule_New(tensor, "TF_Tensor", DeleteTensorCapsule);
  if (capsule == NULL) {
    Py_DECREF(array);
    TF_DeleteTensor(tensor);
    return NULL;
  }
  if (PyArray_SetBaseObject((PyArrayObject*)array, capsule) != 0) {  /* steals the capsule */
    Py_DECREF(array);
    return NULL;
  }
  return array;
}

/* run(session, inputs, arrays, types, outputs, n_out, targets, n_targets, typenums)
 *   session, inputs, outputs, targets: addresses of the TF_Session and of the TF_Output and
 *     TF_Operation* arrays (as the package's ctypes objects hold them);
 *   arrays: a tuple of C-contiguous numpy arrays, one per input, of the TF types in `types`;
 *   typenums: per output, the numpy type number of its data type, or -1 for a type this module
 *     does not convert (strings): that slot then holds the TF_Tensor's address, for the caller.
 * Returns a list with one entry per output, or a tuple (code, message) when the run failed. */
static PyObject* Run(PyObject* self, PyObject* args) {
  (void)self;
  unsigned long long session, inputs, outputs, targets;
  PyObject *arrays, *types, *typenums;
  int n_out, n_targets;
  if (!PyArg_ParseTuple(args, "KKO!O!KiKiO!", &session, &inputs, &PyTuple_Type, &arrays,
                        &PyTuple_Type, &types, &outputs, &n_out, &targets, &n_targets,
                        &PyTuple_Type, &typenums)) {
    return NULL;
  }
  const Py_ssize_t n_in = PyTuple_GET_SIZE(arrays);
  if (n_in > MAX_ARGS || n_out > MAX_ARGS || n_out < 0 || n_targets < 0 ||
      PyTuple_GET_SIZE(types) != n_in || PyTuple_GET_SIZE(typenums) != n_out) {
    PyErr_SetString(PyExc_ValueError, "_fastrun.run: inconsistent arguments");
    return NULL;
  }
  TF_Tensor* in_values[MAX_ARGS];
  TF_Tensor* out_values[MAX_ARGS];
  int64_t dims[NPY_MAXDIMS];
  Py_ssize_t made = 0;
  for (; made < n_in; ++made) {
    PyObject* item = PyTuple_GET_ITEM(arrays, made);
    if (!PyArray_Check(item) || !PyArray_IS_C_CONTIGUOUS((PyArrayObject*)item)) {
      PyErr_SetString(PyExc_TypeError, "_fastrun.run: a fed value is not a C-contiguous array");
      break;
    }
    PyArrayObject* array = (PyArrayObject*)item;
    const int rank = PyArray_NDIM(array);
    for (int i = 0; i < rank; ++i) dims[i] = (int64_t)PyArray_DIM(array, i);
    const long type = PyLong_AsLong(PyTuple_GET_ITEM(types, made));
    Py_INCREF(item);  /* released by ReleaseArray, whatever happens */
    in_values[made] = TF_NewTensor((TF_DataType)type, dims, rank, PyArray_DATA(array),
                                   (size_t)PyArray_NBYTES(array), ReleaseArray, item);
    if (in_values[made] == NULL) {
      PyErr_SetString(PyExc_ValueError, "_fastrun.run: a fed array does not fit its type");
      break;
    }
  }
  if (made < n_in) {
    for (Py_ssize_t i = 0; i < made; ++i) TF_DeleteTensor(in_values[i]);
    return NULL;
  }
  TF_Status* status = TF_NewStatus();
  Py_BEGIN_ALLOW_THREADS
  TF_SessionRun((TF_Session*)(uintptr_t)session, NULL, (const TF_Output*)(uintptr_t)inputs,
                in_values, (int)n_in, (const TF_Output*)(uintptr_t)outputs, out_values, n_out,
                (const TF_Operation* const*)(uintptr_t)targets, n_targets, NULL, status);
  Py_END_ALLOW_THREADS
  for (Py_ssize_t i = 0; i < n_in; ++i) TF_DeleteTensor(in_values[i]);
  if (TF_GetCode(status) != TF_OK) {
    PyObject* error = Py_BuildValue("(is)", (int)TF_GetCode(status), TF_Message(status));
    TF_DeleteStatus(status);
    return error;
  }
  TF_DeleteStatus(status);
  PyObject* results = PyList_New(n_out);
  if (results == NULL) {
    for (int i = 0; i < n_out; ++i) TF_DeleteTensor(out_values[i]);
    return NULL;
  }
  for (int i = 0; i < n_out; ++i) {
    const long typenum = PyLong_AsLong(PyTuple_GET_ITEM(typenums, i));
    PyObject* value = typenum < 0 ? PyLong_FromVoidPtr(out_values[i])
                                  : WrapTensor(out_values[i], (int)typenum);
    if (value == NULL) {
      for (int j = i + 1; j < n_out; ++j) TF_DeleteTensor(out_values[j]);
      Py_DECREF(results);
      return NULL;
    }
    PyList_SET_ITEM(results, i, value);
  }
  return results;
}

static PyMethodDef kMethods[] = {
    {"run", Run, METH_VARARGS, "One step of a session: numpy arrays in, numpy arrays out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "_fastrun",
    "One step of a session in C, for tessera.Session.run.", -1, kMethods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastrun(void) {
  import_array();
  return PyModule_Create(&kModule);
}
