#!/usr/bin/env bash
# The prepared GPU check of BITCOS on ggml-cuda: one script, two steps.
#
#   kernels/cuda/device-check.sh pack LLAMA_CLONE [OUT_DIR]
#       here, with network-free tools only: a trimmed tarball of the pinned
#       llama.cpp (git archive, no docs or vocab models; well under 60 MiB) and a
#       static gguf-bitcos binary, into OUT_DIR (default .device/, git-ignored),
#       for a machine that has nvcc and an NVIDIA GPU but no network.
#   kernels/cuda/device-check.sh run [IN_DIR] [RESULTS]
#       on that machine, from the repository root: unpacks the tarball, applies
#       patches/series, builds ggml-cuda for the local GPU's architecture plus
#       test-backend-ops, llama-perplexity and llama-bench, generates the models
#       and runs the checks below, writing everything to one file (default
#       $OUT/device-check.txt, else ./device-check.txt). Budget: 9 minutes on 16
#       cores; each step has its own timeout and the script goes on after a
#       failed one, so the file always says how far it got.
#
# Checks (all with -ngl 99). For fp16-scaled weights the native path (patch
# 0016) is opt-in, GGML_BITCOS_DEVICE_LAYOUT=native; without it they run as Q2_0
# blocks made at load (patch 0015); f32-scaled ones run natively. For speed,
# kernels/cuda/bench.sh (and microbench/) measure more in one command.
#   1. GGML_BITCOS_DEVICE_LAYOUT=native test-backend-ops -b CUDA0 -p bitcos (and
#      TQ2_0/Q2_0 MUL_MAT for reference)
#   2. which layout each run takes (the loader's and ggml-cuda's log lines), then
#      ppl parity on a small generated bitnet model: the TQ2_0 file against its
#      BITCOS repack transcoded at load (bit-identical expected), and against
#      the repack run natively (close, not bit-identical: another float order)
#   3. llama-bench -p 0 -n 64 and -p 512 -n 0 on the 2B shape: the Q2_0 file,
#      BITCOS transcoded, BITCOS native
#
# DEVICE_CHECK_BACKEND=cpu runs the same flow without CUDA (a dry run of the
# script on any machine; DEVICE_CHECK_BIN=<bin dir> skips the build and uses
# that llama.cpp build instead; DEVICE_CHECK_SHAPE=small benchmarks the small
# shape instead of 2b).
set -uo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
pin="${PIN:-34af94cd9ab277632e27caeec2d41de2fd091b31}"
cmd="${1:-}"

pack() {
  local clone="${1:?usage: device-check.sh pack LLAMA_CLONE [OUT_DIR]}" out="${2:-$here/.device}"
  set -e
  mkdir -p "$out"
  git -C "$clone" archive --format=tar "$pin" -- . ':!docs' ':!media' ':!models/ggml-vocab-*.gguf' ':!.github' ':!.devops' \
    | gzip -9 > "$out/llama.tar.gz"
  (cd "$here" && CGO_ENABLED=0 go build -trimpath -o "$out/gguf-bitcos" ./cmd/gguf-bitcos)
  du -h "$out"/*
  local total; total=$(du -cm "$out"/llama.tar.gz "$out"/gguf-bitcos | tail -n 1 | cut -f1)
  if [ "$total" -ge 60 ]; then echo "pack: $total MiB, over the 60 MiB a device command may carry" >&2; exit 1; fi
  echo "pack: $total MiB in $out (carry it: run(carry=[\".device\"]))"
}

run() {
  local in="${1:-$here/.device}" results="${2:-${OUT:-.}/device-check.txt}"
  local backend="${DEVICE_CHECK_BACKEND:-cuda}" jobs; jobs=$(nproc)
  local work; work=$(mktemp -d)
  exec > >(tee -a "$results") 2>&1
  step() { echo; echo "== $(date -u +%T) $*"; }
  # t SECONDS CMD...: run with a timeout; a failure is reported, not fatal
  t() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; [ $rc = 0 ] || echo "-- exit $rc: $*"; return $rc; }

  step "machine"
  uname -a; nproc; (nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || echo "no nvidia-smi"); (nvcc --version 2>/dev/null | tail -n 2 || echo "no nvcc")
  echo "series: $(git -C "$here" log -1 --format='%h %s' 2>/dev/null)"

  local bin="${DEVICE_CHECK_BIN:-}"
  if [ -z "$bin" ]; then
    step "unpack and apply patches/series"
    "$here/kernels/cuda/unpack-series.sh" "$in" "$work/src" || return 1
    step "configure and build ($backend, $jobs jobs)"
    local flags=(-DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_NATIVE=ON)
    [ "$backend" = cuda ] && flags+=(-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF)
    local gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
    t 60 cmake -S "$work/src" -B "$work/build" "${gen[@]}" "${flags[@]}" > "$work/configure.log" 2>&1 || { tail -n 30 "$work/configure.log"; return 1; }
    t 420 cmake --build "$work/build" -j "$jobs" --target test-backend-ops llama-perplexity llama-bench > "$work/build.log" 2>&1 || { grep -m 20 -B2 -A8 "error" "$work/build.log"; tail -n 20 "$work/build.log"; return 1; }
    bin="$work/build/bin"
  fi
  local dev=CUDA0 ngl=(-ngl 99)
  [ "$backend" = cpu ] && { dev=CPU; ngl=(); }
  local gb="$in/gguf-bitcos"; [ -x "$gb" ] || gb="$(command -v gguf-bitcos || true)"
  [ -n "$gb" ] || { echo "no gguf-bitcos binary: run 'device-check.sh pack' first"; return 1; }

  step "1. GGML_BITCOS_DEVICE_LAYOUT=native test-backend-ops -b $dev -p bitcos"
  # everything but the passing cases (colour codes off), at most 40 lines
  GGML_BITCOS_DEVICE_LAYOUT=native t 120 "$bin/test-backend-ops" -b "$dev" -p bitcos 2>&1 | sed 's/\x1b\[[0-9;]*m//g' |
    grep -Ev ": OK$|^OK$" | tail -n 40
  t 60 "$bin/test-backend-ops" -b "$dev" -o MUL_MAT -p "type_a=(tq2_0|q2_0)" 2>&1 | tail -n 3

  step "models (gguf-bitcos gen + repack)"
  local m="$work/models"; mkdir -p "$m"
  "$gb" gen -q --force --type tq2_0 --shape small --layers 4 "$m/s-tq2.gguf" && "$gb" repack -q --force "$m/s-tq2.gguf" -o "$m/s-bc.gguf" || return 1
  local shape="${DEVICE_CHECK_SHAPE:-2b}"
  t 120 "$gb" gen -q --force --type tq2_0 --shape "$shape" "$m/2b-tq2.gguf" && t 120 "$gb" repack -q --force "$m/2b-tq2.gguf" -o "$m/2b-bc.gguf" && rm -f "$m/2b-tq2.gguf"
  t 120 "$gb" gen -q --force --type q2_0 --shape "$shape" "$m/2b-q2.gguf"
  ls -l "$m"
  cat "$here"/README.md "$here"/docs/*.md > "$m/text.txt"

  step "2. layouts: what the loader and the backend say (one chunk each)"
  for layout in default native; do
    echo "-- GGML_BITCOS_DEVICE_LAYOUT=$layout"
    ( [ $layout = native ] && export GGML_BITCOS_DEVICE_LAYOUT=native
      t 120 "$bin/llama-perplexity" -m "$m/s-bc.gguf" -f "$m/text.txt" -c 128 --chunks 1 "${ngl[@]}" -v 2>&1 |
        grep -E "BITCOS weights on|BITCOS path|BITCOS layout|BITCOS kernel|offloaded" | grep -v " - kv " | head -n 12 )
  done
  step "2a. ppl parity, small model: TQ2_0 file vs BITCOS transcoded at load (default; bit-identical expected)"
  t 120 "$gb" ppl --llama-perplexity "$bin/llama-perplexity" "$m/s-tq2.gguf" "$m/s-bc.gguf" -f "$m/text.txt" -c 128 -- "${ngl[@]}" --chunks 16 2>&1 |
    grep -E "PPL|KLD|same top|parity|identical" | head -n 20
  step "2b. ppl parity, small model: TQ2_0 file vs BITCOS native (GGML_BITCOS_DEVICE_LAYOUT=native; close expected)"
  # (another float order: the logits differ, within --max-kld above the floor)
  GGML_BITCOS_DEVICE_LAYOUT=native t 120 "$gb" ppl --max-kld 1e-4 --allow-ppl-delta --llama-perplexity "$bin/llama-perplexity" "$m/s-tq2.gguf" "$m/s-bc.gguf" -f "$m/text.txt" -c 128 -- "${ngl[@]}" --chunks 16 2>&1 |
    grep -E "PPL|KLD|same top|parity|identical" | head -n 20

  step "3. llama-bench, ${DEVICE_CHECK_SHAPE:-2b} shape (-r 3; rows: Q2_0 file, BITCOS transcoded, BITCOS native)"
  for args in "-p 0 -n 64" "-p 512 -n 0"; do
    echo "-- Q2_0 file, $args"
    t 90 "$bin/llama-bench" -m "$m/2b-q2.gguf" "${ngl[@]}" $args -r 3 -o md 2>&1 | grep -E "^\|" | tail -n 1
    echo "-- BITCOS transcoded to Q2_0 at load, $args"
    t 90 "$bin/llama-bench" -m "$m/2b-bc.gguf" "${ngl[@]}" $args -r 3 -o md 2>&1 | grep -E "^\|" | tail -n 1
    echo "-- BITCOS native (GGML_BITCOS_DEVICE_LAYOUT=native), $args"
    GGML_BITCOS_DEVICE_LAYOUT=native t 90 "$bin/llama-bench" -m "$m/2b-bc.gguf" "${ngl[@]}" $args -r 3 -o md 2>&1 | grep -E "^\|" | tail -n 1
  done
  step "done"
  rm -rf "$work"
}

case "$cmd" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: device-check.sh pack LLAMA_CLONE [OUT_DIR] | run [IN_DIR] [RESULTS]" >&2; exit 64 ;;
esac
