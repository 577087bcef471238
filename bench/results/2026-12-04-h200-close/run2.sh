#!/usr/bin/env bash
# The second call: the barrier's test suite with the test kernel's reads made volatile (the first
# call's test_grid failed on the H200 with stale slots), and linear in every transfer mode.
#   bash bench/results/2026-12-04-h200-close/run2.sh BUNDLE OUT
set -uo pipefail
bundle=$1 dest=$2 out=$2/work2
mkdir -p "$out"
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
step() { # name timeout command...
  local name=$1 limit=$2 t0
  shift 2
  t0=$(date +%s%N)
  echo "== $name ($(date -u +%T))" | tee -a "$out/steps.log"
  timeout "$limit" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  echo "   rc $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/steps.log"
  tar -C "$out" -czf "$dest/close2.tar.gz" --exclude=./cache .
}
export XDG_CACHE_HOME=$out/cache
mkdir -p "$out/cache"
date -u > "$out/date.txt"
for r in 1 2 3; do
  step test_grid-$r 60 bash "$bundle/env.sh" "$bundle/build/tests/test_grid"
done
step linear 90 "${b[@]}" linear --device nvidia --backend cl,clblast --transfer all \
  --json "$out/linear.json"
rm -rf "$out/cache"
