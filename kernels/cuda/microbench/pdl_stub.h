// For compiling ggml-cuda's headers with CUDA 11 (Debian's nvidia-cuda-toolkit
// 11.8): ggml's common.cuh calls CUDA 12's programmatic-dependent-launch device
// functions on sm_90. Empty stand-ins, for a compile and for counting
// instructions (sass.sh, run.sh); a binary built with them must not be timed
// against one built with CUDA 12's.
#pragma once
#include <cuda_runtime.h>
#if CUDART_VERSION < 12000
static __device__ __forceinline__ void cudaGridDependencySynchronize() {}
static __device__ __forceinline__ void cudaTriggerProgrammaticLaunchCompletion() {}
#endif
