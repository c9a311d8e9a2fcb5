// C++ wrappers over the kernel construction and kernel contexts of the C ABI.
#ifndef TESSERA_SDK_KERNEL_CONTEXT_H_
#define TESSERA_SDK_KERNEL_CONTEXT_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/plugin_api/plugin.h"
#include "tessera/sdk/host_api.h"
#include "tessera/sdk/shape.h"
#include "tessera/sdk/status.h"
#include "tessera/sdk/tensor_view.h"

namespace tessera::sdk {

namespace internal {

inline const char* AttrTypeName(TSR_AttrType type) {
  switch (type) {
    case TSR_ATTR_TYPE_STRING:
      return "string";
    case TSR_ATTR_TYPE_INT:
      return "int";
    case TSR_ATTR_TYPE_FLOAT:
      return "float";
    case TSR_ATTR_TYPE_BOOL:
      return "bool";
    case TSR_ATTR_TYPE_TYPE:
      return "type";
    case TSR_ATTR_TYPE_SHAPE:
      return "shape";
    case TSR_ATTR_TYPE_TENSOR:
      return "tensor";
    case TSR_ATTR_TYPE_LIST_STRING:
      return "list(string)";
    case TSR_ATTR_TYPE_LIST_INT:
      return "list(int)";
    case TSR_ATTR_TYPE_LIST_FLOAT:
      return "list(float)";
    case TSR_ATTR_TYPE_LIST_BOOL:
      return "list(bool)";
    case TSR_ATTR_TYPE_LIST_TYPE:
      return "list(type)";
    case TSR_ATTR_TYPE_LIST_SHAPE:
      return "list(shape)";
    case TSR_ATTR_TYPE_FUNC:
      return "func";
    case TSR_ATTR_TYPE_LIST_TENSOR:
      return "list(tensor)";
    case TSR_ATTR_TYPE_LIST_FUNC:
      return "list(func)";
    default:
      return "unspecified";
  }
}

inline bool IsListAttr(TSR_AttrType type) {
  return (type >= TSR_ATTR_TYPE_LIST_STRING && type <= TSR_ATTR_TYPE_LIST_SHAPE) ||
         type == TSR_ATTR_TYPE_LIST_TENSOR || type == TSR_ATTR_TYPE_LIST_FUNC;
}

}  // namespace internal

// A `shape` or list(shape) element as an attribute holds it: the rank may be unknown, and so may
// any dimension (-1).
struct AttrShape {
  bool unknown_rank = false;
  std::vector<int64_t> dims;
};

// A `func` attribute: the function's name and the attributes it is instantiated with, sorted by
// name. The values borrow from the host, like every attribute: read them before the kernel's
// constructor returns.
struct FuncAttr {
  std::string name;
  std::vector<std::string> attr_names;
  std::vector<TSR_AttrValue> attr_values;
};

// Seen by a kernel's constructor: the node's name, attributes and argument types. Valid only
// while the kernel is being created. A constructor that cannot build its kernel calls
// SetStatus (or throws StatusException); the SDK then destroys the kernel and returns the status.
class KernelConstruction {
 public:
  explicit KernelConstruction(TSR_KernelConstruction* ctx) : ctx_(ctx) {}

  const char* node_name() const { return HostApi()->KernelConstruction_GetNodeName(ctx_); }
  int num_inputs() const { return HostApi()->KernelConstruction_NumInputs(ctx_); }
  int num_outputs() const { return HostApi()->KernelConstruction_NumOutputs(ctx_); }
  TSR_DataType input_type(int index) const {
    return HostApi()->KernelConstruction_GetInputType(ctx_, index);
  }
  TSR_DataType output_type(int index) const {
    return HostApi()->KernelConstruction_GetOutputType(ctx_, index);
  }
  TSR_Device* device() const { return HostApi()->KernelConstruction_GetDevice(ctx_); }
  TSR_KernelConstruction* c_ctx() const { return ctx_; }

  // The raw attribute (pointers borrowed until the kernel's creation returns).
  Status GetAttrValue(const char* name, TSR_AttrValue* value) const {
    *value = TSR_AttrValue{};
    value->struct_size = sizeof(TSR_AttrValue);
    value->tensor.struct_size = sizeof(TSR_TensorView);
    return Status(HostApi()->KernelConstruction_GetAttr(ctx_, name, value));
  }
  bool HasAttr(const char* name) const {
    TSR_AttrValue value;
    return GetAttrValue(name, &value).ok();
  }

  // Typed getters: int64_t, int32_t, float, bool, TSR_DataType, std::string, AttrShape, FuncAttr,
  // std::vector of int64_t, int32_t, TSR_DataType, std::string, AttrShape, TensorView and FuncAttr,
  // and TensorView (a `tensor` attribute in host memory, strings packed as strings.h reads them;
  // copy what you need before the constructor returns).
  template <typename T>
  Status GetAttr(const char* name, T* out) const {
    TSR_AttrValue value;
    TESSERA_SDK_RETURN_IF_ERROR(GetAttrValue(name, &value));
    return Convert(name, value, out);
  }

  // Records why the kernel cannot be built; the first failure wins.
  void SetStatus(Status status) {
    if (status_.ok()) status_ = std::move(status);
  }
  bool ok() const { return status_.ok(); }
  Status TakeStatus() { return std::move(status_); }

 private:
  Status Mismatch(const char* name, const TSR_AttrValue& value, const char* expected) const {
    return InvalidArgument("attribute '", name, "' of node '", node_name(), "' is a ",
                           internal::AttrTypeName(value.type), ", expected ", expected);
  }
  Status Convert(const char* name, const TSR_AttrValue& v, int64_t* out) const {
    if (v.type != TSR_ATTR_TYPE_INT) return Mismatch(name, v, "int");
    *out = v.i;
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, int32_t* out) const {
    if (v.type != TSR_ATTR_TYPE_INT) return Mismatch(name, v, "int");
    if (v.i < INT32_MIN || v.i > INT32_MAX) {
      return InvalidArgument("attribute '", name, "' of node '", node_name(), "' is ", v.i,
                             ", which does not fit in int32");
    }
    *out = static_cast<int32_t>(v.i);
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, float* out) const {
    if (v.type != TSR_ATTR_TYPE_FLOAT) return Mismatch(name, v, "float");
    *out = v.f;
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, bool* out) const {
    if (v.type != TSR_ATTR_TYPE_BOOL) return Mismatch(name, v, "bool");
    *out = v.b;
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, TSR_DataType* out) const {
    if (v.type != TSR_ATTR_TYPE_TYPE) return Mismatch(name, v, "type");
    *out = v.dtype;
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::string* out) const {
    if (v.type != TSR_ATTR_TYPE_STRING) return Mismatch(name, v, "string");
    out->assign(v.s == nullptr ? "" : v.s, v.s == nullptr ? 0 : v.s_size);
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, TensorView* out) const {
    if (v.type != TSR_ATTR_TYPE_TENSOR) return Mismatch(name, v, "tensor");
    *out = TensorView(v.tensor);
    return OkStatus();
  }
  // An empty list may arrive with any list type: its element type is not recorded.
  static bool IsEmptyList(const TSR_AttrValue& v) {
    return internal::IsListAttr(v.type) && v.list_size == 0;
  }
  template <typename I>
  Status ConvertIntList(const char* name, const TSR_AttrValue& v, std::vector<I>* out) const {
    out->clear();
    if (IsEmptyList(v)) return OkStatus();
    if (v.type != TSR_ATTR_TYPE_LIST_INT) return Mismatch(name, v, "list(int)");
    out->reserve(v.list_size);
    for (size_t i = 0; i < v.list_size; ++i) out->push_back(static_cast<I>(v.list_i[i]));
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::vector<int64_t>* out) const {
    return ConvertIntList(name, v, out);
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::vector<int32_t>* out) const {
    return ConvertIntList(name, v, out);
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::vector<TSR_DataType>* out) const {
    out->clear();
    if (IsEmptyList(v)) return OkStatus();
    if (v.type != TSR_ATTR_TYPE_LIST_TYPE) return Mismatch(name, v, "list(type)");
    out->assign(v.list_type, v.list_type + v.list_size);
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::vector<std::string>* out) const {
    out->clear();
    if (IsEmptyList(v)) return OkStatus();
    if (v.type != TSR_ATTR_TYPE_LIST_STRING) return Mismatch(name, v, "list(string)");
    for (size_t i = 0; i < v.list_size; ++i) out->emplace_back(v.list_s[i], v.list_s_size[i]);
    return OkStatus();
  }
  static AttrShape MakeShape(int32_t rank, const int64_t* dims) {
    AttrShape shape;
    shape.unknown_rank = rank < 0;
    if (rank > 0) shape.dims.assign(dims, dims + rank);
    return shape;
  }
  Status Convert(const char* name, const TSR_AttrValue& v, AttrShape* out) const {
    if (v.type != TSR_ATTR_TYPE_SHAPE) return Mismatch(name, v, "shape");
    *out = MakeShape(v.shape_rank, v.shape_dims);
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::vector<AttrShape>* out) const {
    out->clear();
    if (IsEmptyList(v)) return OkStatus();
    if (v.type != TSR_ATTR_TYPE_LIST_SHAPE) return Mismatch(name, v, "list(shape)");
    for (size_t i = 0; i < v.list_size; ++i) {
      out->push_back(MakeShape(v.list_shape_rank[i], v.list_shape_dims[i]));
    }
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::vector<TensorView>* out) const {
    out->clear();
    if (IsEmptyList(v)) return OkStatus();
    if (v.type != TSR_ATTR_TYPE_LIST_TENSOR) return Mismatch(name, v, "list(tensor)");
    for (size_t i = 0; i < v.list_size; ++i) out->emplace_back(v.list_tensor[i]);
    return OkStatus();
  }
  static FuncAttr MakeFunc(const TSR_FuncAttr& f) {
    FuncAttr func;
    func.name = f.name == nullptr ? "" : f.name;
    for (size_t i = 0; i < f.num_attrs; ++i) {
      func.attr_names.emplace_back(f.attr_names[i]);
      func.attr_values.push_back(f.attr_values[i]);
    }
    return func;
  }
  Status Convert(const char* name, const TSR_AttrValue& v, FuncAttr* out) const {
    if (v.type != TSR_ATTR_TYPE_FUNC || v.func == nullptr) return Mismatch(name, v, "func");
    *out = MakeFunc(*v.func);
    return OkStatus();
  }
  Status Convert(const char* name, const TSR_AttrValue& v, std::vector<FuncAttr>* out) const {
    out->clear();
    if (IsEmptyList(v)) return OkStatus();
    if (v.type != TSR_ATTR_TYPE_LIST_FUNC) return Mismatch(name, v, "list(func)");
    for (size_t i = 0; i < v.list_size; ++i) out->push_back(MakeFunc(v.func[i]));
    return OkStatus();
  }

  TSR_KernelConstruction* ctx_;
  Status status_;
};

// Seen by Compute: borrowed input views, output allocation (with forwarding), temporaries, the
// device, stream and the host's intra-op pool. Valid only during the call.
class KernelContext {
 public:
  explicit KernelContext(TSR_KernelContext* ctx) : ctx_(ctx) {}

  const char* node_name() const { return HostApi()->KernelContext_GetNodeName(ctx_); }
  int64_t step_id() const { return HostApi()->KernelContext_GetStepId(ctx_); }
  int num_inputs() const { return HostApi()->KernelContext_NumInputs(ctx_); }
  int num_outputs() const { return HostApi()->KernelContext_NumOutputs(ctx_); }
  TSR_Device* device() const { return HostApi()->KernelContext_GetDevice(ctx_); }
  TSR_Stream* stream() const { return HostApi()->KernelContext_GetStream(ctx_); }
  TSR_ThreadPool* thread_pool() const { return HostApi()->KernelContext_GetThreadPool(ctx_); }
  TSR_KernelContext* c_ctx() const { return ctx_; }
  // True once the step is cancelled or failed elsewhere (KernelContext_IsCancelled). Long
  // kernels ask between pieces of work.
  bool cancelled() const { return HostApi()->KernelContext_IsCancelled(ctx_); }

  // Fills `view` with input `index` (no allocation).
  Status GetInput(int index, TensorView* view) const {
    *view = TensorView();
    return Status(HostApi()->KernelContext_GetInput(ctx_, index, view->c_view()));
  }
  // Input `index`; throws StatusException when the host refuses (a bad index).
  TensorView input(int index) const {
    TensorView view;
    ThrowIfError(GetInput(index, &view));
    return view;
  }

  Status AllocateOutput(int index, const Shape& shape, TensorView* out) {
    *out = TensorView();
    return Status(HostApi()->KernelContext_AllocateOutput(ctx_, index, shape.rank(), shape.dims(),
                                                          out->c_view()));
  }
  // A string output in the packed layout with room for `total_bytes` of elements; fill it with
  // WritePackedStrings (strings.h) before Compute returns.
  Status AllocateStringOutput(int index, const Shape& shape, size_t total_bytes,
                              TensorView* out) {
    *out = TensorView();
    return Status(HostApi()->KernelContext_AllocateStringOutput(
        ctx_, index, shape.rank(), shape.dims(), total_bytes, out->c_view()));
  }
  // Reuses one of `candidate_inputs` for output `output_index` when the host allows it.
  Status ForwardInputOrAllocateOutput(std::initializer_list<int32_t> candidate_inputs,
                                      int output_index, const Shape& shape, TensorView* out,
                                      int* forwarded_input = nullptr) {
    *out = TensorView();
    int32_t forwarded = -1;
    Status status(HostApi()->KernelContext_ForwardInputOrAllocateOutput(
        ctx_, candidate_inputs.begin(), static_cast<int32_t>(candidate_inputs.size()), output_index,
        shape.rank(), shape.dims(), out->c_view(), &forwarded));
    if (forwarded_input != nullptr) *forwarded_input = forwarded;
    return status;
  }
  // Output `output_index` shares input `input_index`'s buffer with the same shape.
  Status SetOutputFromInput(int output_index, int input_index) {
    return Status(
        HostApi()->KernelContext_SetOutputFromInput(ctx_, output_index, input_index, -1, nullptr));
  }
  // ... or with a new shape of the same element count.
  Status SetOutputFromInput(int output_index, int input_index, const Shape& shape) {
    return Status(HostApi()->KernelContext_SetOutputFromInput(ctx_, output_index, input_index,
                                                              shape.rank(), shape.dims()));
  }
  Status AllocateTemp(TSR_DataType dtype, const Shape& shape, TensorView* out) {
    *out = TensorView();
    return Status(HostApi()->KernelContext_AllocateTemp(ctx_, dtype, shape.rank(), shape.dims(),
                                                        out->c_view()));
  }

  int NumThreads() const { return HostApi()->ThreadPool_NumThreads(thread_pool()); }

  // Runs fn(begin, end) over shards of [0, total) on the host's intra-op pool and this thread;
  // `cost_per_unit` is the estimated cycles per element. Returns when every shard is done.
  template <typename Fn>
  void ParallelFor(int64_t total, int64_t cost_per_unit, Fn&& fn) const {
    if (total <= 0) return;
    using FnType = std::remove_reference_t<Fn>;
    HostApi()->ThreadPool_ParallelFor(
        thread_pool(), total, cost_per_unit,
        [](void* arg, int64_t begin, int64_t end) { (*static_cast<FnType*>(arg))(begin, end); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  TSR_KernelContext* ctx_;
};

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_KERNEL_CONTEXT_H_
