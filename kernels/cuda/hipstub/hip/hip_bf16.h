#pragma once
// Compile-check stub (README.md): the HIP >= 6 names ggml-cuda's headers use
// and Debian's HIP 5.2 lacks. Nothing compiled with it runs.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
struct __hip_bfloat16 { unsigned short x; };
struct __hip_bfloat162 { __hip_bfloat16 x, y; };
static __device__ inline __hip_bfloat16 __float2bfloat16(float) { return {}; }
static __device__ inline float __bfloat162float(__hip_bfloat16) { return 0.0f; }
static __device__ inline half __hmax(half a, half) { return a; }
static __device__ inline half2 __hmax2(half2 a, half2) { return a; }
static __device__ inline half2 __shfl_xor(half2 a, int, int = warpSize) { return a; }
static __device__ inline half2 __shfl_up(half2 a, unsigned int, int = warpSize) { return a; }
#define hipHostRegisterReadOnly 0x08
static const hipDeviceAttribute_t hipDeviceAttributeVirtualMemoryManagementSupported = (hipDeviceAttribute_t) 0;
static inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e) { return hipStreamWaitEvent(s, e, 0); }
