#!/usr/bin/env bash
# Instructions, not speed: compiles mmv_bench.cu (the mat-vec variants of patch
# 0016) for sm_ARCH with nvcc, no GPU needed, and prints per one-column variant
# its registers and the SASS instructions of its main loop per 32 chunks (1024
# weights: one step of one warp per row, half a step pair of the paired
# geometry), with the loop's global and shared loads. On an H200 the mat-vec
# was bound by its per-weight work, so these counts are the first thing a
# change to it should move. Debian's nvidia-cuda-toolkit (11.8, non-free)
# is enough: ggml's PDL calls, which need CUDA 12, are stubbed below 12
# (pdl_stub.h).
#   kernels/cuda/microbench/sass.sh LLAMA_SRC [ARCH]
# LLAMA_SRC: a llama.cpp tree with patches/series applied; ARCH default 90.
set -euo pipefail
here="$(cd "$(dirname "$0")/../../.." && pwd)"
src="${1:?usage: sass.sh LLAMA_SRC [ARCH]}"
arch="${2:-90}"
command -v nvcc > /dev/null && command -v cuobjdump > /dev/null || { echo "sass.sh: needs nvcc and cuobjdump" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
extra=(-include "$here/kernels/cuda/microbench/pdl_stub.h") # CUDA 11: ggml's PDL calls stubbed
s="$src/ggml"
nvcc -O3 -std=c++17 -arch="sm_$arch" -use_fast_math --extended-lambda -DGGML_BITCOS_CUDA_VARIANTS -Xptxas=-v "${extra[@]}" \
  -I"$s/include" -I"$s/src" -I"$s/src/ggml-cuda" "$here/kernels/cuda/microbench/mmv_bench.cu" -cubin -o "$work/mmv.cubin" \
  > "$work/nvcc.log" 2>&1 || { tail -n 30 "$work/nvcc.log"; exit 1; }
echo "nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), sm_$arch: per variant, registers; main loop instructions per 32 chunks (LDG, LDS)"
cuobjdump -sass "$work/mmv.cubin" | awk -v logf="$work/nvcc.log" '
  BEGIN {
    # the one-column, unfused instances of mmv_bench.cu, by mangled name prefix
    v["_Z18mul_mat_vec_bitcosILi1ELb0ELb0ELi1ELb0E"] = "w1g"; v["_Z18mul_mat_vec_bitcosILi1ELb0ELb1ELi1ELb0E"] = "w1s"
    v["_Z18mul_mat_vec_bitcosILi4ELb0ELb1ELi1ELb0E"] = "w4s"; v["_Z18mul_mat_vec_bitcosILi4ELb0ELb0ELi1ELb0E"] = "w4g"
    v["_Z18mul_mat_vec_bitcosILi2ELb0ELb1ELi1ELb0E"] = "w2s"; v["_Z18mul_mat_vec_bitcosILi8ELb0ELb1ELi1ELb0E"] = "w8s"
    v["_Z18mul_mat_vec_bitcosILi1ELb1ELb1ELi1ELb0E"] = "s1s"; v["_Z18mul_mat_vec_bitcosILi1ELb1ELb0ELi1ELb0E"] = "s1g"
    v["_Z24mul_mat_vec_bitcos_pairsILi4ELb1ELi1ELi1ELb0E"] = "y4s"; v["_Z24mul_mat_vec_bitcos_pairsILi4ELb1ELi0ELi1ELb0E"] = "y4g"
    v["_Z24mul_mat_vec_bitcos_pairsILi8ELb1ELi1ELi1ELb0E"] = "y8s"; v["_Z24mul_mat_vec_bitcos_pairsILi8ELb1ELi0ELi1ELb0E"] = "y8g"
    v["_Z24mul_mat_vec_bitcos_pairsILi4ELb0ELi0ELi1ELb0E"] = "p4g"
    v["_Z24mul_mat_vec_bitcos_pairsILi8ELb1ELi16ELi1ELb0E"] = "y8h"; v["_Z24mul_mat_vec_bitcos_pairsILi8ELb1ELi32ELi1ELb0E"] = "y8r"
    v["_Z24mul_mat_vec_bitcos_pairsILi4ELb1ELi32ELi1ELb0E"] = "y4r"
    while ((getline line < logf) > 0) {
      if (match(line, /Compiling entry function .(_Z[A-Za-z0-9_]+)/)) { cur = substr(line, RSTART + 26, RLENGTH - 26) }
      if (cur != "" && match(line, /Used [0-9]+ registers/)) { regs[cur] = substr(line, RSTART + 5, RLENGTH - 15); cur = "" }
    }
  }
  function hex(h,   i, x) { x = 0; h = tolower(h); sub(/^0x/, "", h)
    for (i = 1; i <= length(h); i++) x = x * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
    return x }
  function flush(   i, j, k, t, n, ldg, lds, idp, best) {
    if (name == "") return
    best = ""
    for (i = 1; i <= n_ins; i++) {
      if (match(ins[i], /BRA 0x[0-9a-f]+/)) {
        t = hex(substr(ins[i], RSTART + 4, RLENGTH - 4))
        if (t >= addr[i]) continue
        for (j = 1; j <= i && addr[j] != t; j++) {}
        n = i - j + 1; ldg = lds = idp = 0
        for (k = j; k <= i; k++) { ldg += ins[k] ~ /LDG/; lds += ins[k] ~ /LDS/; idp += ins[k] ~ /IDP/ }
        if (idp >= 8) best = sprintf("%3d instructions per 32 chunks (LDG %d, LDS %d)", n * 8 / idp, ldg * 8 / idp, lds * 8 / idp)
      }
    }
    for (k in v) if (index(name, k) == 1) printf "  %-4s %3s registers  %s\n", v[k], regs[name], best
  }
  /Function : / { flush(); name = $3; n_ins = 0; next }
  match($0, /\/\*[0-9a-f]+\*\/ +[^;]+;/) {
    s = substr($0, RSTART, RLENGTH); a = s; sub(/\*\/.*/, "", a); sub(/\/\*/, "", a)
    sub(/^\/\*[0-9a-f]+\*\/ +/, "", s); n_ins++; addr[n_ins] = hex(a); ins[n_ins] = s
  }
  END { flush() }' | sort
