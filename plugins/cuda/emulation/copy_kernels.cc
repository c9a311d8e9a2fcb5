// plugins/cuda/copy_kernels.cu compiled as C++ for the CPU emulation of the kernel language
// (gpu_emulation.h), so that the kernel tests run it without a GPU.
#include "plugins/cuda/copy_kernels.cu"
