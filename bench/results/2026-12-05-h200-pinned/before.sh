#!/usr/bin/env bash
# Builds clgauge at commit REV (Release, as ../shared/device/stage builds) into
# .device/before/clgauge, for run.sh to time beside the staged build in the same call. Run from
# the checkout's root after ../shared/device/stage:
#   bash bench/results/2026-12-05-h200-pinned/before.sh f536e78
set -euo pipefail
rev=$1
root=$(git rev-parse --show-toplevel)
src=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$src" >/dev/null 2>&1 || rm -rf "$src"' EXIT
git -C "$root" worktree add --detach "$src" "$rev" >/dev/null
cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$src/build" -j"$(nproc)" --target clgauge >/dev/null
mkdir -p "$root/.device/before"
cp "$src/build/clgauge" "$root/.device/before/clgauge"
git -C "$root" rev-parse --short "$rev" > "$root/.device/before/commit"
echo "built $(cat "$root/.device/before/commit") into .device/before/clgauge"
