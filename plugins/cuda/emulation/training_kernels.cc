// plugins/cuda/training_kernels.cu compiled as C++ for the CPU emulation of the kernel language
// (gpu_emulation.h), so that the kernel tests run it without a GPU.
#include "plugins/cuda/training_kernels.cu"
