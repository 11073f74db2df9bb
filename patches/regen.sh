#!/usr/bin/env bash
# Regenerate the patch series after editing kernels/c, kernels/sycl,
# kernels/vulkan or kernels/cuda (the sources of truth for the CPU kernels, the
# SYCL kernels, the BITCOS shaders of ggml-vulkan and ggml-cuda's device
# functions). Git only: it builds nothing.
#   patches/regen.sh /path/to/llama.cpp   (a clone that has the pinned commit)
# It applies the series (patches/series: core/ then optional/) on a scratch
# branch at the pin; after each patch, every file that patch adds under
# ggml-cpu/bitcos/, ggml-vulkan/vulkan-shaders/, ggml-sycl/bitcos/ or
# ggml-cuda/ and that has a source of truth here is replaced by it, and the
# series is written back into the same directories. A kernels/c file is carried by the patch that adds
# it (the one whose CMake lines compile it); a new kernels/c file must first be
# added to a patch by hand. `go test ./kernels -run PatchCarries` checks the result.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="${1:?usage: regen.sh /path/to/llama.cpp}"
pin="${PIN:-34af94cd9ab277632e27caeec2d41de2fd091b31}"
git() { command git -c user.email=dev@gguf-bitcos -c user.name="gguf-bitcos dev" "$@"; }

# the source of truth of a file the series adds, or nothing
truth() {
  case "$1" in
    ggml/src/ggml-cpu/bitcos/bitcos_*) echo "$here/../kernels/c/$(basename "$1")" ;;
    ggml/src/ggml-vulkan/vulkan-shaders/*bitcos*) echo "$here/../kernels/vulkan/$(basename "$1")" ;;
    ggml/src/ggml-sycl/bitcos/bitcos_sycl.hpp) echo "$here/../kernels/sycl/bitcos_sycl.hpp" ;;
    ggml/src/ggml-cuda/bitcos_cuda.cuh) echo "$here/../kernels/cuda/bitcos_cuda.cuh" ;;
  esac
}

cd "$repo"
branch="gguf-bitcos-regen-$$"
git checkout -q -b "$branch" "$pin"
mapfile -t series < "$here/series"
for p in "${series[@]}"; do
  git am -q "$here/$p"
  changed=0
  while read -r f; do
    t=$(truth "$f")
    [ -n "$t" ] || continue
    if [ ! -f "$t" ]; then
      echo "$p adds $f, but $t is gone: drop it from the patch (and its CMake line)" >&2
      exit 1
    fi
    if ! cmp -s "$t" "$f"; then cp "$t" "$f"; git add "$f"; changed=1; fi
  done < <(git show --diff-filter=A --name-only --format= HEAD)
  [ $changed = 0 ] || git commit -q --amend --no-edit
done
tmp=$(mktemp -d)
git format-patch -q --zero-commit --no-signature -o "$tmp" "HEAD~${#series[@]}"
for p in "${series[@]}"; do
  n=$(basename "$p")
  cp "$tmp/$n" "$here/$p" 2>/dev/null || { echo "format-patch named a patch differently than $p (subject changed?): see $tmp" >&2; exit 1; }
done
rm -rf "$tmp"
echo "regenerated ${#series[@]} patches on branch $branch of $repo"
