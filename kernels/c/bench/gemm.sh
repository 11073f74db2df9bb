#!/usr/bin/env bash
# Build and run the batched-kernel benchmark (gemm.c), gcc only.
#   kernels/c/bench/gemm.sh [K=2560] [z=0.42]
# Compiled as ggml compiles its CPU backend for an AVX2 build: -O3 -mavx2
# -mfma -mf16c -mbmi2 (GCC's default FMA contraction: the TQ2_0 yardstick is
# then in TQ2_0's x86 float order, and gemm.c checks every output against it).
# Runs the AVX2 build of bitcos_gemm.c, then its AVX-VNNI build when the CPU
# has AVX-VNNI. Core cycles are TSC-derived: run it on a quiet machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
c="$here/.."
out="${TMPDIR:-/tmp}/bitcos-gemm-bench.$$"
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
flags="-O3 -Wall -Wextra -mavx2 -mfma -mf16c -mbmi2"
builds=(avx2)
if grep -qw avx_vnni /proc/cpuinfo; then builds+=(avx2_vnni); fi
for b in "${builds[@]}"; do
  extra=""
  if [ "$b" = avx2_vnni ]; then extra="-mavxvnni"; fi
  nice gcc $flags $extra -c -o "$out/gemm_$b.o" "$c/bitcos_gemm.c"
  nice gcc $flags -c -o "$out/tq2_0.o" "$here/tq2_0.c"
  nice gcc $flags -o "$out/gemm_$b" "$here/gemm.c" "$out/gemm_$b.o" "$out/tq2_0.o"
  echo "== $b"
  nice "$out/gemm_$b" "${1:-2560}" "${2:-0.42}"
done
