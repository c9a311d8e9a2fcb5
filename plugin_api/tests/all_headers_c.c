/* Compiles every ABI header as C11, so the headers stay plain C. */
#include "tessera/plugin_api/plugin_api.h"

int tessera_all_headers_compile_as_c(void);
int tessera_all_headers_compile_as_c(void) {
  TSR_TensorView view = {0};
  view.struct_size = TSR_STRUCT_SIZE(TSR_TensorView, byte_size);
  return (int)view.struct_size + TSR_ABI_VERSION_MAJOR;
}
