/* Op definitions built by calls (no string mini-language), attribute values, and the
 * shape-inference context a plugin-defined op's shape function sees. */
#ifndef TESSERA_PLUGIN_API_OP_H_
#define TESSERA_PLUGIN_API_OP_H_

#include "tessera/plugin_api/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Attribute values
 * ------------------------------------------------------------------------------------------- */
typedef enum TSR_AttrType {
  TSR_ATTR_TYPE_UNSPECIFIED = 0,
  TSR_ATTR_TYPE_STRING = 1,
  TSR_ATTR_TYPE_INT = 2,
  TSR_ATTR_TYPE_FLOAT = 3,
  TSR_ATTR_TYPE_BOOL = 4,
  TSR_ATTR_TYPE_TYPE = 5,
  TSR_ATTR_TYPE_SHAPE = 6,
  TSR_ATTR_TYPE_TENSOR = 7,
  TSR_ATTR_TYPE_LIST_STRING = 8,
  TSR_ATTR_TYPE_LIST_INT = 9,
  TSR_ATTR_TYPE_LIST_FLOAT = 10,
  TSR_ATTR_TYPE_LIST_BOOL = 11,
  TSR_ATTR_TYPE_LIST_TYPE = 12,
  TSR_ATTR_TYPE_LIST_SHAPE = 13,
  TSR_ATTR_TYPE_FUNC = 14,
  TSR_ATTR_TYPE_LIST_TENSOR = 15,
  TSR_ATTR_TYPE_LIST_FUNC = 16,
} TSR_AttrType;

struct TSR_AttrValue;

/* A `func` attribute: a function's name and the attributes it is instantiated with (TensorFlow's
 * NameAttrList). Borrowed like the value that holds it. */
typedef struct TSR_FuncAttr {
  size_t struct_size;
  const char* name;                         /* NUL-terminated */
  size_t num_attrs;
  const char* const* attr_names;            /* `num_attrs` names, sorted */
  const struct TSR_AttrValue* attr_values;  /* `num_attrs` values, nested as deep as the graph */
} TSR_FuncAttr;

/* One attribute value, of any of TensorFlow's attribute kinds. Only the members that `type` names
 * are meaningful; an empty list has list_size 0 and reads as LIST_INT, whatever the op declares
 * (a node's empty list records no element type). Every pointer is borrowed: when the host fills a TSR_AttrValue, the pointers stay valid for as long as the call
 * that produced it says (kernel create: until create returns; shape function: until it returns).
 * When a plugin fills one (an op attribute's default), the host copies it during the call. */
typedef struct TSR_AttrValue {
  size_t struct_size;
  TSR_AttrType type;
  int64_t i;                 /* INT */
  float f;                   /* FLOAT */
  bool b;                    /* BOOL */
  TSR_DataType dtype;        /* TYPE */
  const char* s;             /* STRING: bytes, not NUL-terminated */
  size_t s_size;
  int32_t shape_rank;        /* SHAPE: -1 for unknown rank */
  const int64_t* shape_dims; /* SHAPE: -1 for an unknown dimension */
  TSR_TensorView tensor;     /* TENSOR: host memory (strings packed, see common.h) */
  size_t list_size;          /* LIST_*: number of elements */
  const int64_t* list_i;     /* LIST_INT */
  const float* list_f;       /* LIST_FLOAT */
  const bool* list_b;        /* LIST_BOOL */
  const TSR_DataType* list_type; /* LIST_TYPE */
  const char* const* list_s;     /* LIST_STRING: `list_size` byte strings, not NUL-terminated */
  const size_t* list_s_size;     /* LIST_STRING: their sizes */
  const int32_t* list_shape_rank;        /* LIST_SHAPE: rank of each, -1 for unknown */
  const int64_t* const* list_shape_dims; /* LIST_SHAPE: dims of each, -1 unknown dimensions */
  const TSR_TensorView* list_tensor;     /* LIST_TENSOR: host memory */
  const TSR_FuncAttr* func;              /* FUNC: one; LIST_FUNC: `list_size` of them */
} TSR_AttrValue;

/* ---------------------------------------------------------------------------------------------
 * Op definitions
 *
 * A plugin creates a builder with TSR_HostApi.OpDefBuilder_Create, adds arguments and attributes,
 * then hands it to TSR_HostApi.Registrar_RegisterOp, which consumes it (success or failure).
 * A builder that is not registered is destroyed with OpDefBuilder_Destroy.
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_OpDefBuilder TSR_OpDefBuilder;

/* One input or output. Exactly one of `dtype`, `type_attr`, `type_list_attr` gives the type. */
typedef struct TSR_OpArg {
  size_t struct_size;
  const char* name;           /* in: [a-z][a-z0-9_]* */
  TSR_DataType dtype;         /* in: a fixed type, or TSR_DTYPE_INVALID */
  const char* type_attr;      /* in: name of a `type` attribute, or NULL */
  const char* number_attr;    /* in: name of an `int` attribute giving a repeat count, or NULL */
  const char* type_list_attr; /* in: name of a `list(type)` attribute, or NULL */
  bool is_ref; /* in: TensorFlow's Ref(T), a ref variable's edge; not with type_list_attr */
} TSR_OpArg;

typedef struct TSR_OpAttr {
  size_t struct_size;
  const char* name;                   /* in: [A-Za-z][A-Za-z0-9_]* ("T", "N", "keep_dims") */
  TSR_AttrType type;                  /* in */
  const TSR_AttrValue* default_value; /* in: NULL when the attribute is required */
  const TSR_DataType* allowed_types;  /* in: for TYPE and LIST_TYPE attrs; NULL means any */
  size_t num_allowed_types;
  bool has_minimum; /* in: for INT (value) and LIST_* (length) attrs */
  int64_t minimum;
} TSR_OpAttr;

typedef enum TSR_OpFlag {
  TSR_OP_FLAG_STATEFUL = 1u << 0,
  TSR_OP_FLAG_COMMUTATIVE = 1u << 1,
  TSR_OP_FLAG_AGGREGATE = 1u << 2,
} TSR_OpFlag;

/* ---------------------------------------------------------------------------------------------
 * Shape inference
 *
 * A shape function runs on the host's thread during graph construction. It reads the input
 * shapes (rank -1: unknown; dimension -1: unknown), attributes and, where the input is a
 * constant, its value, and sets every output's shape. The context is valid only during the call.
 * ------------------------------------------------------------------------------------------- */
typedef struct TSR_ShapeContext TSR_ShapeContext;
typedef TSR_Status* (*TSR_ShapeFn)(void* user_data, TSR_ShapeContext* ctx);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_API_OP_H_ */
