#!/usr/bin/env bash
# One call on the H200 after the engine's new pieces were merged: linear's epoch variant, matmul
# at the shapes not measured before (777 x 1333 x 555, the cliff at 1025), clgauge tune and a run
# with its settings, the first run from process start (coldstart), and the suite over every
# device. Run from the repository root on the device machine:
#   bash bench/results/2026-12-03-h200-integration/run.sh BUNDLE OUT
set -uo pipefail
bundle=$1 dest=$2 out=$2/work
mkdir -p "$out"
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
step() { # name timeout command...
  local name=$1 limit=$2
  shift 2
  echo "== $name ($(date -u +%T))" | tee -a "$out/steps.log"
  timeout "$limit" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  echo "   rc $? ($(date -u +%T))" | tee -a "$out/steps.log"
  # what has run so far comes back even if a later step runs past the call's limit
  tar -C "$out" -czf "$dest/integration.tar.gz" --exclude=./cache .
}
export XDG_CACHE_HOME=$out/cache
mkdir -p "$out/cache"
step list 30 "${b[@]}" list
step linear 60 "${b[@]}" linear --device nvidia --transfer all --json "$out/linear.json"
step matmul-777 60 "${b[@]}" matmul --device nvidia --backend cl,clblast --variant regblock,pipelined,sgemm \
  --m 777 --k 1333 --n 555 --loops 20 --runs 10 --json "$out/matmul-777.json"
step matmul-1025 60 "${b[@]}" matmul --device nvidia --backend cl,clblast --variant regblock,pipelined,sgemm \
  --sweep-n 1000,1024,1025,1100 --loops 20 --runs 10 --json "$out/matmul-1025.json"
step tune 150 "${b[@]}" tune --device nvidia --workload mlp,linear,saxpy --budget-s 25 \
  --tuning-file "$out/tuning.json"
step mlp-tuned 45 "${b[@]}" mlp --device nvidia --backend cl,clblast --tuning-file "$out/tuning.json" \
  --json "$out/mlp-tuned.json"
step mlp-untuned 45 "${b[@]}" mlp --device nvidia --backend cl,clblast --no-tuned --json "$out/mlp-untuned.json"
step coldstart 120 env CLGAUGE="$bundle/build/clgauge" bash "$bundle/env.sh" bash bench/coldstart.sh \
  "$out/coldstart" --device nvidia --repeat 1
step suite-all 130 "${b[@]}" suite --device all --json "$out/suite-all.json"
rm -rf "$out"
