// TensorView: a C++ face over a borrowed TSR_TensorView (kernel inputs, outputs, tensor attrs).
#ifndef TESSERA_SDK_TENSOR_VIEW_H_
#define TESSERA_SDK_TENSOR_VIEW_H_

#include <cstddef>
#include <cstdint>

#include "tessera/plugin_api/common.h"
#include "tessera/sdk/shape.h"

namespace tessera::sdk {

// Borrowed: the data and dims stay valid only as long as the call that filled the view says.
class TensorView {
 public:
  TensorView() { view_.struct_size = sizeof(TSR_TensorView); }
  explicit TensorView(const TSR_TensorView& view) : view_(view) {}

  // For the SDK and host fakes to fill.
  TSR_TensorView* c_view() { return &view_; }
  const TSR_TensorView& c_view() const { return view_; }

  TSR_DataType dtype() const { return view_.dtype; }
  int rank() const { return view_.rank; }
  int64_t dim(int i) const { return view_.dims[i]; }
  const int64_t* dims() const { return view_.dims; }
  Shape shape() const { return Shape(view_.rank, view_.dims); }
  int64_t num_elements() const { return Shape::CheckedProduct(view_.rank, view_.dims); }
  size_t byte_size() const { return view_.byte_size; }
  void* raw_data() const { return view_.data; }
  template <typename T>
  T* data() const {
    return static_cast<T*>(view_.data);
  }

 private:
  TSR_TensorView view_{};
};

}  // namespace tessera::sdk

#endif  // TESSERA_SDK_TENSOR_VIEW_H_
