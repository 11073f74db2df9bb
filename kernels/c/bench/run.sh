#!/usr/bin/env bash
# Build and run the BITCOS vs TQ2_0 kernel benchmark (bench.c), gcc only.
#   kernels/c/bench/run.sh [z=0.42] [threads=1] [layers=24]
# Each kernel file is its own translation unit with its own flags, as in the
# llama.cpp patch: AVX2 files with -mavx2 -mbmi2 -mf16c -mfma (the FMA of
# the TQ2_0-order kernels is an explicit intrinsic), the AVX-512 file with
# -mavx512f -mavx512bw -mbmi2 -mf16c -mfma (run only when the CPU has
# AVX-512 F+BW), bitcos_tq2_0_vnni.c (TQ2_0 blocks, the load-time layout's
# one-column kernel) with AVX-512 VL+VNNI, F16C and FMA, everything with
# -ffp-contract=off.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
c="$here/.."
out="${TMPDIR:-/tmp}/bitcos-bench.$$"
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
common="-O2 -ffp-contract=off -Wall -Wextra"
avx2="$common -mavx2 -mbmi2 -mf16c"
nice gcc $common -c -o "$out/generic.o" "$c/bitcos_generic.c"
nice gcc $avx2   -mfma -c -o "$out/nopdep.o"  "$c/bitcos_nopdep.c"
nice gcc $common -c -o "$out/tq2order.o" "$c/bitcos_tq2order.c"
nice gcc $avx2   -mfma -c -o "$out/avx2_tq2.o" "$c/bitcos_avx2_tq2.c"
nice gcc $avx2   -mfma -mpclmul ${CLMUL_FLAGS--mvpclmulqdq} -c -o "$out/avx2_clmul.o" "$c/bitcos_avx2_clmul.c"
nice gcc $common -mavx512f -mavx512bw -mbmi2 -mf16c -mfma -c -o "$out/avx512_tq2.o" "$c/bitcos_avx512_tq2.c"
nice gcc $common -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mf16c -mfma -c -o "$out/tq2_0_vnni.o" "$c/bitcos_tq2_0_vnni.c"
nice gcc $avx2   -c -o "$out/tq2_0.o"   "$here/tq2_0.c"
nice gcc $avx2   -o "$out/bench" "$here/bench.c" "$out"/*.o -lpthread -lm
nice "$out/bench" "${1:-0.42}" "${2:-1}" "${3:-24}"
