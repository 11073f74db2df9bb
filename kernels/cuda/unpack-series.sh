#!/usr/bin/env bash
# kernels/cuda/unpack-series.sh IN_DIR DEST: the pinned llama.cpp from
# IN_DIR/llama.tar.gz (kernels/cuda/device-check.sh pack) unpacked into DEST and
# patches/series applied on it as commits. For the GPU scripts beside it
# (device-check.sh, bench.sh, microbench/run.sh), which run on machines with
# no network and no clone; exits non-zero, saying why, on any failure.
set -uo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
in="${1:?usage: unpack-series.sh IN_DIR DEST}" dest="${2:?usage: unpack-series.sh IN_DIR DEST}"
mkdir -p "$dest" && tar xzf "$in/llama.tar.gz" -C "$dest" || { echo "no tarball in $in: run 'device-check.sh pack' first"; exit 1; }
git() { command git -c user.name=d -c user.email=d@d "$@"; }
cd "$dest" && git init -q && git add -A && git commit -qm pin || { echo "git init of the pin failed"; exit 1; }
while read -r p; do
  git am -q "$here/patches/$p" || { echo "git am failed: $p"; exit 1; }
done < "$here/patches/series"
