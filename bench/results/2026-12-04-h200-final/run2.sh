#!/usr/bin/env bash
# The second call of 2026-12-04: linear with its persistent epoch on by default on a GPU, then
# the first run from process start (coldstart) of matmul and mlp on the merged tree.
#   bash bench/results/2026-12-04-h200-final/run2.sh BUNDLE OUT
set -uo pipefail
bundle=$1 dest=$2 out=$2/work
mkdir -p "$out"
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
export XDG_CACHE_HOME=$out/cache
mkdir -p "$out/cache"
timeout 60 "${b[@]}" linear --device nvidia --backend cl --transfer all --json "$out/linear-default.json" \
  > "$out/linear-default.txt" 2>&1
echo "linear rc $?" >> "$out/steps.log"
tar -C "$out" -czf "$dest/final2.tar.gz" --exclude=./cache .
timeout 150 env CLGAUGE="$bundle/build/clgauge" bash "$bundle/env.sh" bash bench/coldstart.sh \
  "$out/coldstart" --device nvidia --repeat 1 > "$out/coldstart.txt" 2>&1
echo "coldstart rc $?" >> "$out/steps.log"
rm -rf "$out/cache"
tar -C "$out" -czf "$dest/final2.tar.gz" .
rm -rf "$out"
