// Another plugin's headers, the host's status macros and a test helper of tests/.
#include "base/status_macros.h"
#include "plugins/good/kernel.h"
#include "tests/kernels/cpu/kernel_test_util.h"
