#!/usr/bin/env bash
# The prepared GPU benchmark of BITCOS on ggml-cuda against Q2_0 (the native
# mat-vec, f32-scaled weights): one command on a machine with nvcc and an
# NVIDIA GPU, no network, a clean machine every time, at most 9 minutes on 16
# cores.
#
#   kernels/cuda/device-check.sh pack LLAMA_CLONE    # here: .device/ (the pin + a static gguf-bitcos)
#   kernels/cuda/bench.sh [IN_DIR] [RESULTS]           # there, from the repository root
#
# It applies patches/series to the pin, builds ggml-cuda once with every
# mat-vec variant (-DGGML_BITCOS_CUDA_VARIANTS: GGML_BITCOS_CUDA_MMV picks one at
# run time, so comparing variants needs no rebuild), generates the models while
# it builds, and writes into RESULTS (default $OUT/bench.txt):
#   1. test-backend-ops -b CUDA0 -p bitcos (native: GGML_BITCOS_DEVICE_LAYOUT=native),
#      the default variant
#   2. test-backend-ops perf: Q2_0's mat-vec beside BITCOS's at the 2B, 8B and
#      70B shapes (one column), fused gate/up/GLU, an 8B FFN at 8 and 512
#      columns, f32 scales; f32 copies for the roofline. A one-column line:
#      us/run, and GB/s from the weight's bytes
#   3. llama-bench -p 512 -n 128 -r 3, the 2B shape: a Q2_0 file, BITCOS from
#      TQ2_0 by default, BITCOS native, BITCOS from I2_S (f32 scale) by default
#      and with the y8r mat-vec
#   4. per other variant: the one-column perf cases
#   5. step 3 for the 8B shape (Q2_0 file, BITCOS default, BITCOS native, and
#      native with y8r)
#   6. compute-sanitizer memcheck over step 1's cases (default variant, then the
#      first of the others)
#   7-8. step 3 again (round 2, alternated with round 1), BITCOS native per
#      other variant; step 1's cases per other variant
# The most telling steps come first: a run cut short still reports them.
# Each step has its own timeout and the script goes on after a failed one;
# steps past BENCH_BUDGET seconds (default 530) are skipped and said so.
# BENCH_BACKEND=cpu BENCH_BIN=<cpu build>/bin runs the flow on the CPU (a dry
# run: no CUDA, variants and memcheck skipped, the small shape; BENCH_PERF=0
# skips step 2, whose large shapes take minutes on a CPU).
set -uo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
in="${1:-$here/.device}"
results="${2:-${OUT:-.}/bench.txt}"
backend="${BENCH_BACKEND:-cuda}"
budget="${BENCH_BUDGET:-530}"
# the first: the build's default (BITCOS_CUDA_MMV_WARPS 1, table in global memory); then the
# paired geometry (y: activations staged in shared memory, p: not; the table in 32, 16 or 1
# shared copies or global memory: r, h, s, g), in the order docs/studies/cuda-lsu predicts
# them fastest; then the older geometries
variants=(w1g y8r y8h y8s y4r y4s y4g y8g p4g w1s w4s w4g w2s w8s s1s s1g)
jobs=$(nproc)
work=$(mktemp -d)
t0=$(date +%s)
exec > >(tee -a "$results") 2>&1

step() { echo; echo "== +$(( $(date +%s) - t0 ))s $*"; }
# t SECONDS CMD...: run with a timeout; a failure is reported, not fatal
t() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; [ $rc = 0 ] || echo "-- exit $rc: $*"; return $rc; }
# left: whether the budget allows another step
left() { [ $(( $(date +%s) - t0 )) -lt "$budget" ] || { echo "-- skipped: past the ${budget}s budget"; return 1; }; }

step "machine"
uname -m; nproc; (nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>/dev/null || echo "no nvidia-smi")
(nvcc --version 2>/dev/null | tail -n 1 || echo "no nvcc")
echo "series: $(git -C "$here" log -1 --format='%h %s' 2>/dev/null)"

gb="$in/gguf-bitcos"; [ -x "$gb" ] || gb="$(command -v gguf-bitcos || true)"
[ -n "$gb" ] || { echo "no gguf-bitcos binary: run 'device-check.sh pack' first"; exit 1; }
m="$work/models"; mkdir -p "$m"
shape2=2b shape8=8b
[ "$backend" = cpu ] && { shape2=small; shape8=small; }
# the models, in the background while the build runs
(
  g() { "$gb" gen -q --force "$@"; }
  g --type q2_0 --shape $shape2 "$m/2b-q2.gguf"
  g --type tq2_0 --shape $shape2 "$m/2b-tq2.gguf" && "$gb" repack -q --force "$m/2b-tq2.gguf" -o "$m/2b-bc.gguf" && rm -f "$m/2b-tq2.gguf"
  g --type i2_s --shape $shape2 "$m/2b-i2s.gguf" && "$gb" repack -q --force "$m/2b-i2s.gguf" -o "$m/2b-bc-i2s.gguf" && rm -f "$m/2b-i2s.gguf"
  g --type q2_0 --shape $shape8 "$m/8b-q2.gguf"
  g --type tq2_0 --shape $shape8 "$m/8b-tq2.gguf" && "$gb" repack -q --force "$m/8b-tq2.gguf" -o "$m/8b-bc.gguf" && rm -f "$m/8b-tq2.gguf"
  echo "models done at +$(( $(date +%s) - t0 ))s"
) > "$work/models.log" 2>&1 &
models=$!

bin="${BENCH_BIN:-}"
if [ -z "$bin" ]; then
  step "unpack and apply patches/series"
  "$here/kernels/cuda/unpack-series.sh" "$in" "$work/src" || exit 1
  step "configure and build ($backend, $jobs jobs)"
  flags=(-DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON)
  [ "$backend" = cuda ] && flags+=(-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF
    "-DCMAKE_CUDA_FLAGS=-DGGML_BITCOS_CUDA_VARIANTS -Xptxas=-v")
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  t 60 cmake -S "$work/src" -B "$work/build" "${gen[@]}" "${flags[@]}" > "$work/configure.log" 2>&1 || { tail -n 30 "$work/configure.log"; exit 1; }
  t 330 cmake --build "$work/build" -j "$jobs" --target test-backend-ops llama-bench > "$work/build.log" 2>&1 ||
    { grep -m 20 -B2 -A8 "error" "$work/build.log"; tail -n 20 "$work/build.log"; exit 1; }
  bin="$work/build/bin"
  echo "-- registers of the BITCOS mat-vecs, one column (ptxas -v)"
  grep -E -A4 "Compiling entry function '_Z(18mul_mat_vec_bitcos|24mul_mat_vec_bitcos_pairs)ILi[0-9]ELb[01]ELb[01]ELi1ELb0E" "$work/build.log" |
    grep -oE "(bitcos|pairs)ILi[0-9]ELb[01]ELb[01]|Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste -sd' ' |
    sed -E 's/ (bitcos|pairs)I/\n\1I/g'
fi
dev=CUDA0 ngl=(-ngl 99)
[ "$backend" = cpu ] && { dev=CPU; ngl=(); variants=(w4s); }

ops=MUL_MAT,MUL_MAT_ID,GET_ROWS,MUL_MAT_GLU_BITCOS
# eval_cases V: the BITCOS cases, native, mat-vec variant V; all but the passing lines
eval_cases() {
  GGML_BITCOS_DEVICE_LAYOUT=native GGML_BITCOS_CUDA_MMV=$1 t 120 "$bin/test-backend-ops" -b "$dev" -o $ops -p "bitcos|type_s=" 2>&1 |
    sed 's/\x1b\[[0-9;]*m//g' | grep -Ev ": OK$|^OK$|not supported|converted to" | tail -n 12
}
step "1. GGML_BITCOS_DEVICE_LAYOUT=native test-backend-ops -b $dev -p bitcos (default variant ${variants[0]})"
eval_cases "${variants[0]}"

# us/run of a perf line, and GB/s from the weight's bytes (m x k weights; Q2_0
# 2.25 bits each, BITCOS 2 - z with the cases' mean z of 0.41, plus the row
# index): awk over test-backend-ops perf output
gbs() {
  # a case's name line ("  OP(vars): ...") and its "N runs - X us/run" line may
  # have ggml-cuda's CUDA-graph log lines between them
  sed 's/\x1b\[[0-9;]*m//g' | awk '
  match($0, /^  [A-Z_]+\([^)]*(\([^)]*\)[^)]*)*\)/) { name = substr($0, RSTART + 2, RLENGTH - 2) }
  / us\/run/ && name != "" {
    us=0; for (i=1;i<=NF;i++) if ($(i)=="us/run") us=$(i-1);
    m=0; k=0; n=1; if (match(name,/[(,]m=[0-9]+/)) m=substr(name,RSTART+3,RLENGTH-3);
    if (match(name,/,k=[0-9]+/)) k=substr(name,RSTART+3,RLENGTH-3);
    if (match(name,/,n=[0-9]+/)) n=substr(name,RSTART+3,RLENGTH-3);
    bits = name ~ /bitcos|BITCOS/ ? 2 - 0.41 : 2.25; glu = name ~ /GLU|FUSION/ ? 2 : 1;
    if (name ~ /FUSION/) { m=n; n=1 }  # MUL_MAT_VEC_FUSION: n is the weight rows
    bytes = glu * (m*k*bits/8 + (name ~ /bitcos|BITCOS/ ? 4*m : 0));
    if (n == 1 && us > 0) printf "%-100s %9.2f us/run %8.1f GB/s\n", substr(name,1,100), us, bytes/us/1000;
    else printf "%-100s %9.2f us/run\n", substr(name,1,100), us
    name = "" }'
}
step "2. test-backend-ops perf -b $dev: Q2_0 and BITCOS (native, ${variants[0]}), one column and more; f32 copies"
if [ "${BENCH_PERF:-1}" = 0 ]; then
  echo "-- skipped: BENCH_PERF=0"
elif left; then
  GGML_BITCOS_DEVICE_LAYOUT=native t 150 "$bin/test-backend-ops" perf -b "$dev" -o MUL_MAT \
    -p "type_a=(q2_0|bitcos)" > "$work/perf.txt" 2>&1
  gbs < "$work/perf.txt"
  cp "$work/perf.txt" "${OUT:-$work}/perf-raw.txt" 2>/dev/null
  echo "-- copies (the roofline's reference)"
  t 40 "$bin/test-backend-ops" perf -b "$dev" -o CPY -p "type_src=f32,type_dst=f32" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' | grep "GB/s" | head -n 4
fi

wait $models; grep -v "^wrote" "$work/models.log"; ls -l "$m"
bench() { # label, env..., -- model
  local label=$1; shift
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  printf '%-44s ' "$label"
  env "${envs[@]}" timeout 90 "$bin/llama-bench" -m "$1" "${ngl[@]}" -p 512 -n 128 -r 3 -o md 2>/dev/null |
    awk -F'|' '/^\| / && $(NF-2) ~ /(pp|tg)[0-9]/ { gsub(/ +/, " "); printf "%s:%s   ", $(NF-2), $(NF-1) }' || true
  echo
}
round2b() {
  bench "Q2_0 file" -- "$m/2b-q2.gguf"
  bench "BITCOS (TQ2_0) default" -- "$m/2b-bc.gguf"
  bench "BITCOS (TQ2_0) native" GGML_BITCOS_DEVICE_LAYOUT=native -- "$m/2b-bc.gguf"
  bench "BITCOS (I2_S, f32 scale) default" -- "$m/2b-bc-i2s.gguf"
  # the candidate default for f32 scales: the paired mat-vec on staged activations
  [ "$backend" = cpu ] || bench "BITCOS (I2_S, f32 scale) default, y8r" GGML_BITCOS_CUDA_MMV=y8r -- "$m/2b-bc-i2s.gguf"
}
step "3. llama-bench -p 512 -n 128 -r 3 (t/s), 2B shape, round 1"
left && round2b
step "4. the other mat-vec variants: BITCOS one-column perf"
for v in "${variants[@]:1}"; do
  left || break
  echo "-- variant $v"
  GGML_BITCOS_DEVICE_LAYOUT=native GGML_BITCOS_CUDA_MMV=$v t 60 "$bin/test-backend-ops" perf -b "$dev" -o MUL_MAT \
    -p "^type_a=bitcos,type_b=f32,m=[0-9]+,n=1,.*f16$" 2>&1 | gbs
done
step "5. llama-bench, 8B shape"
if left; then
  bench "8B Q2_0 file" -- "$m/8b-q2.gguf"
  bench "8B BITCOS default" -- "$m/8b-bc.gguf"
  bench "8B BITCOS native" GGML_BITCOS_DEVICE_LAYOUT=native -- "$m/8b-bc.gguf"
  [ "$backend" = cpu ] || bench "8B BITCOS native, y8r" GGML_BITCOS_DEVICE_LAYOUT=native GGML_BITCOS_CUDA_MMV=y8r -- "$m/8b-bc.gguf"
  bench "8B Q2_0 file (again)" -- "$m/8b-q2.gguf"
fi

step "6. compute-sanitizer memcheck over step 1's cases: the default variant, then the first of the others"
for v in "${variants[@]:0:2}"; do
  [ "$backend" = cuda ] && left || break
  echo "-- variant $v"
  GGML_BITCOS_DEVICE_LAYOUT=native GGML_BITCOS_CUDA_MMV=$v t 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$bin/test-backend-ops" -b "$dev" -o $ops -p "bitcos|type_s=" 2>&1 |
    sed 's/\x1b\[[0-9;]*m//g' | grep -E "ERROR SUMMARY|tests passed|FAIL|Invalid" | head -n 12
done

step "7. llama-bench, 2B shape, round 2, then native per variant"
left && round2b
for v in "${variants[@]:1}"; do
  left || break
  bench "BITCOS (TQ2_0) native $v" GGML_BITCOS_DEVICE_LAYOUT=native GGML_BITCOS_CUDA_MMV=$v -- "$m/2b-bc.gguf"
done
step "8. test-backend-ops -b $dev -p bitcos, the other variants"
for v in "${variants[@]:1}"; do
  left || break
  echo "-- variant $v"; eval_cases "$v"
done
step "done"
rm -rf "$work"
