#pragma once
// Compile-check stub (README.md): the hipBLAS names ggml-cuda uses, declared
// only (Debian ships no hipBLAS). Nothing compiled with it runs.
typedef void * hipblasHandle_t;
typedef enum {
    HIPBLAS_STATUS_SUCCESS, HIPBLAS_STATUS_NOT_INITIALIZED, HIPBLAS_STATUS_ALLOC_FAILED, HIPBLAS_STATUS_INVALID_VALUE,
    HIPBLAS_STATUS_ARCH_MISMATCH, HIPBLAS_STATUS_MAPPING_ERROR, HIPBLAS_STATUS_EXECUTION_FAILED,
    HIPBLAS_STATUS_INTERNAL_ERROR, HIPBLAS_STATUS_NOT_SUPPORTED
} hipblasStatus_t;
typedef enum { HIPBLAS_R_16F, HIPBLAS_R_32F, HIPBLAS_R_16B } hipblasDatatype_t;
typedef enum { HIPBLAS_OP_N, HIPBLAS_OP_T } hipblasOperation_t;
typedef enum { HIPBLAS_GEMM_DEFAULT } hipblasGemmAlgo_t;
hipblasStatus_t hipblasCreate(hipblasHandle_t *);
hipblasStatus_t hipblasDestroy(hipblasHandle_t);
hipblasStatus_t hipblasSetStream(hipblasHandle_t, ...);
hipblasStatus_t hipblasGemmEx(hipblasHandle_t, ...);
hipblasStatus_t hipblasGemmBatchedEx(hipblasHandle_t, ...);
hipblasStatus_t hipblasGemmStridedBatchedEx(hipblasHandle_t, ...);
hipblasStatus_t hipblasSgemm(hipblasHandle_t, ...);
hipblasStatus_t hipblasSgemmBatched(hipblasHandle_t, ...);
hipblasStatus_t hipblasSgemmStridedBatched(hipblasHandle_t, ...);
