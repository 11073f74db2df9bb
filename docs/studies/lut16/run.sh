#!/usr/bin/env bash
# Build the multi-row table-lookup study kernel (lut.c) against kernels/c, run
# its bit-exactness test, and with "bench" also the benchmark (1 thread,
# z = 0.30/0.42/0.52, K = 2560 and 6912). gcc, AVX2 + BMI2 + FMA + F16C.
#   docs/studies/lut16/run.sh [bench]
# A measurement kept for the record (REPORT.md); kernels/lut16_study_test.go
# runs it without "bench".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
c="$here/../../../kernels/c"
out="${TMPDIR:-/tmp}/bitcos-lut16.$$"
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
common="-O2 -ffp-contract=off -Wall -Wextra -I$c -I$c/bench"
avx2="$common -mavx2 -mbmi2 -mf16c -mfma"
gcc $common -c -o "$out/tq2order.o" "$c/bitcos_tq2order.c"
gcc $avx2   -c -o "$out/avx2_tq2.o" "$c/bitcos_avx2_tq2.c"
gcc $avx2   -c -o "$out/lut.o"      "$here/lut.c"
gcc $common -mavx2 -mbmi2 -mf16c -c -o "$out/tq2_0.o" "$c/bench/tq2_0.c"
gcc $avx2 -o "$out/test_lut"  "$here/test_lut.c"  "$out/lut.o" "$out/tq2order.o" -lm
"$out/test_lut"
if [ "${1:-}" = bench ]; then
  gcc $avx2 -o "$out/bench_lut" "$here/bench_lut.c" "$out/lut.o" "$out/avx2_tq2.o" "$out/tq2order.o" "$out/tq2_0.o" -lm
  for K in 2560 6912; do
    layers=$(( K == 2560 ? 24 : 10 ))
    for z in 0.30 0.42 0.52; do
      echo "=================================================================="
      "$out/bench_lut" "$z" "$layers" "$K"
    done
  done
fi
