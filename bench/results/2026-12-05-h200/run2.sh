#!/usr/bin/env bash
# The third H200 call of 2026-12-05: the defaults after launch D (DZ1A=0) and float2 reads
# (VW=2) became the GPUs' own, run as defaults: the fused configurations' Check suite, the big
# preset, the three shapes of the second call, and the seed preset.
#   bash bench/results/2026-12-05-h200/run2.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/h200-1205b "$2/h200-1205b.tar.gz"
o=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
t=$bundle/build/tests
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$o/gpu.txt" 2>&1
step test_mlp_fused_configs 200 env CK_RUN_CASE=fused_configs bash "$bundle/env.sh" "$t/test_mlp"
for r in 1 2; do
  step big-$r 120 "${b[@]}" mlp --device nvidia --backend cl,clblast --preset big --iters 120 \
    --print-every 40 --json "$o/big-$r.json"
done
for sh in "64 2048 2048 8 400" "32 4096 512 8 400" "64 1024 128 8 2000"; do
  set -- $sh
  n=$1-$2-$3-$4
  step mlp-$n 120 "${b[@]}" mlp --device nvidia --backend cl,clblast --batch $1 --din $2 \
    --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) --json "$o/mlp-$n.json"
done
