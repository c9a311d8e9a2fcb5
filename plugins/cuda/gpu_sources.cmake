# The GPU plugin's sources, shared by plugins/cuda (nvcc, cuBLAS) and plugins/rocm (hipcc, the
# tiled matrix product), relative to plugins/cuda/.
set(TESSERA_GPU_KERNEL_SOURCES elementwise_binary.cu elementwise_unary.cu gemm_kernels.cu
    reduce_kernels.cu softmax_kernels.cu training_kernels.cu copy_kernels.cu)
set(TESSERA_GPU_KERNEL_HEADERS elementwise_common.cuh elementwise_kernels.h gemm_kernels.h
    reduce_kernels.h training_kernels.h copy_kernels.h gpu_runtime.h gpu_emulation.h)
set(TESSERA_GPU_HOST_SOURCES bfc_allocator.cc broadcast_plan.cc gpu_device.cc gpu_kernels.cc
    gpu_matmul.cc gpu_plugin.cc gpu_reduction_kernels.cc gpu_training_kernels.cc reduce_plan.cc
    gpu_array_kernels.cc gpu_kernel_util.cc)
