#pragma once
// Compile-check stub (README.md): ggml-cuda includes RCCL's header; the
// BITCOS glue uses nothing of it.
