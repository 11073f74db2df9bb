#!/usr/bin/env bash
# Which parts of the series apply on their own: the core alone on the pin, then
# each optional patch on the core with only the optional patches it names as
# its prerequisites (README.md, "Parts"). Git only (git apply --check on a
# scratch worktree): it builds nothing. Exit 1 when a line of the table is false.
#   patches/check-parts.sh /path/to/llama.cpp   (a clone that has the pinned commit)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="${1:?usage: check-parts.sh /path/to/llama.cpp}"
pin="${PIN:-34af94cd9ab277632e27caeec2d41de2fd091b31}"

# optional patch -> the optional patches it needs first (README.md's table)
declare -A needs=(
  [0007]="" [0008]="" [0009]="" [0010]="" [0011]="" [0014]="" [0016]=""
  [0012]="0011" [0013]="0011 0012"
  [0015]="0007 0008 0009 0010 0011 0012 0013 0014"
)

wt=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$wt"' EXIT
git -C "$repo" worktree add -q --detach "$wt" "$pin"
cd "$wt"
apply() { git apply --index "$here/$1"; }
patch_of() { grep "/$1-" "$here/series"; }

for p in $(grep '^core/' "$here/series"); do apply "$p"; done
core=$(git write-tree)
echo "core ($(grep -c '^core/' "$here/series") patches) applies on the pin"

fail=0
for n in $(printf '%s\n' "${!needs[@]}" | sort); do
  git read-tree --reset -u "$core"
  ok=1
  for d in ${needs[$n]} "$n"; do
    apply "$(patch_of "$d")" 2>/dev/null || { ok=0; break; }
  done
  if [ $ok = 1 ]; then
    echo "optional $n applies on the core${needs[$n]:+ after ${needs[$n]}}"
  else
    echo "optional $n does NOT apply on the core${needs[$n]:+ after ${needs[$n]}}" >&2
    fail=1
  fi
done
exit $fail
