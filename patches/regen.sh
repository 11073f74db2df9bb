#!/usr/bin/env bash
# Regenerate the patch series after editing kernels/c, kernels/sycl or
# kernels/vulkan (the sources of truth for the CPU kernels, the SYCL kernels and
# the BITCOS shaders of ggml-vulkan). Git only: it builds nothing.
#   patches/regen.sh /path/to/llama.cpp   (a clone that has the pinned commit)
# It applies the series on a scratch branch at the pin, replacing the kernel
# files of the patch that adds ggml/src/ggml-cpu/bitcos/ with kernels/c, and
# writes the series back here (kernels/sycl/bitcos_sycl.hpp likewise into the
# patch that adds ggml/src/ggml-sycl/bitcos/). `go test ./kernels -run PatchCarries` checks it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="${1:?usage: regen.sh /path/to/llama.cpp}"
pin="${PIN:-34af94cd9ab277632e27caeec2d41de2fd091b31}"
git() { command git -c user.email=dev@gguf-bitcos -c user.name="gguf-bitcos dev" "$@"; }
cd "$repo"
branch="gguf-bitcos-regen-$$"
git checkout -q -b "$branch" "$pin"
for p in $(cat "$here/series"); do
  git am -q "$here/$p"
  if grep -q '^+++ b/ggml/src/ggml-cpu/bitcos/bitcos_generic.c' "$here/$p"; then
    # every kernels/c source and header but the AVX-512 twin (a test aid);
    # TestPatchCarriesKernels checks the same set
    for f in "$here"/../kernels/c/*.c "$here"/../kernels/c/*.h; do
      case "$f" in *_twin.c) continue ;; esac
      cp "$f" "ggml/src/ggml-cpu/bitcos/$(basename "$f")"
    done
    git add ggml/src/ggml-cpu/bitcos
    git commit -q --amend --no-edit
  fi
  if grep -q '^+++ b/ggml/src/ggml-vulkan/vulkan-shaders/mul_mat_vec_bitcos.comp' "$here/$p"; then
    # the BITCOS shaders of kernels/vulkan (TestPatchCarriesVulkanShaders)
    for f in "$here"/../kernels/vulkan/*.comp "$here"/../kernels/vulkan/*.glsl; do
      cp "$f" "ggml/src/ggml-vulkan/vulkan-shaders/$(basename "$f")"
    done
    git add ggml/src/ggml-vulkan/vulkan-shaders
    git commit -q --amend --no-edit
  fi
  if grep -q '^+++ b/ggml/src/ggml-sycl/bitcos/bitcos_sycl.hpp' "$here/$p"; then
    # the SYCL kernels' one source of truth (TestPatchCarriesKernels checks it)
    cp "$here/../kernels/sycl/bitcos_sycl.hpp" ggml/src/ggml-sycl/bitcos/bitcos_sycl.hpp
    git add ggml/src/ggml-sycl/bitcos
    git commit -q --amend --no-edit
  fi
done
n=$(wc -l < "$here/series")
rm -f "$here"/0*.patch
git format-patch -q --zero-commit --no-signature -o "$here" "HEAD~$n"
(cd "$here" && ls 0*.patch > series)
echo "regenerated $n patches on branch $branch of $repo"
