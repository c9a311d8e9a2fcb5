// The registry reaching into the host: refused.
#include "host/runtime/tensor.h"
#include "base/status_macros.h"
