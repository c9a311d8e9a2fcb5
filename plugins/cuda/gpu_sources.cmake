# The GPU plugin's sources, shared by plugins/cuda (nvcc, cuBLAS) and plugins/rocm (hipcc, the
# tiled matrix product), relative to plugins/cuda/.
set(TESSERA_GPU_KERNEL_SOURCES elementwise_binary.cu elementwise_unary.cu gemm_kernels.cu)
set(TESSERA_GPU_KERNEL_HEADERS elementwise_common.cuh elementwise_kernels.h gemm_kernels.h
    gpu_runtime.h)
set(TESSERA_GPU_HOST_SOURCES bfc_allocator.cc broadcast_plan.cc gpu_device.cc gpu_kernels.cc
    gpu_matmul.cc gpu_plugin.cc)
