#!/usr/bin/env bash
# Builds and runs mmv_bench.cu (the BITCOS mat-vec variants alone) on a machine
# with nvcc and an NVIDIA GPU, from the repository root, offline, in about two
# minutes: the pin from .device/llama.tar.gz (kernels/cuda/device-check.sh pack),
# patches/series applied, one nvcc call against ggml-cuda's headers.
#   kernels/cuda/microbench/run.sh [IN_DIR] [ARCH]     (ARCH default 90)
set -uo pipefail
here="$(cd "$(dirname "$0")/../../.." && pwd)"
in="${1:-$here/.device}"
arch="${2:-90}"
work=$(mktemp -d)
t0=$(date +%s)
"$here/kernels/cuda/unpack-series.sh" "$in" "$work/src" || exit 1
echo "== +$(( $(date +%s) - t0 ))s nvcc (sm_$arch, as ggml-cuda builds: fast math, extended lambdas)"
s="$work/src/ggml"
nvcc -O3 -std=c++17 -arch="sm_$arch" -use_fast_math --extended-lambda -DGGML_BITCOS_CUDA_VARIANTS -Xptxas=-v \
  -include "$here/kernels/cuda/microbench/pdl_stub.h" \
  -I"$s/include" -I"$s/src" -I"$s/src/ggml-cuda" "$here/kernels/cuda/microbench/mmv_bench.cu" -o "$work/mmv_bench" \
  -Xlinker --unresolved-symbols=ignore-all > "$work/nvcc.log" 2>&1 || { tail -n 40 "$work/nvcc.log"; exit 1; }
echo "== +$(( $(date +%s) - t0 ))s run"
"$work/mmv_bench"
echo "== +$(( $(date +%s) - t0 ))s the variants' registers and loop instructions (sass.sh)"
"$here/kernels/cuda/microbench/sass.sh" "$work/src" "$arch"
echo "== +$(( $(date +%s) - t0 ))s done"
rm -rf "$work"
