#!/usr/bin/env bash
# First call of the evening: the rebuilt persistent mlp kernel against the fused launches, at the
# seed shape (several group counts) and at the small shapes of the grid; its Check cases on the
# device.   bash bench/results/2026-12-04-h200-evening/run1.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin "$2/call1" "$2/call1.tar.gz"
out=$steps_out
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt" 2>&1
seed=(mlp --device nvidia --backend cl --variant fused --iters 2000 --print-every 500)
step seed-launches 90 "${b[@]}" "${seed[@]}" --kernel-param PERSIST=0 --json "$out/seed-launches.json"
step seed-persist 90 "${b[@]}" "${seed[@]}" --kernel-param PERSIST=1 --json "$out/seed-persist.json"
for g in 128 96 64 32; do
  step seed-persist-g$g 90 "${b[@]}" "${seed[@]}" --kernel-param PERSIST=1,PGROUPS=$g \
    --json "$out/seed-persist-g$g.json"
done
step seed-persist-w3 90 "${b[@]}" "${seed[@]}" --update-w3 --kernel-param PERSIST=1 \
  --json "$out/seed-persist-w3.json"
for s in 8x16x16x1 8x1024x128x8 64x256x64x8 256x128x128x1 1024x16x16x1 32x512x256x16; do
  IFS=x read -r n d h o <<< "$s"
  for p in 0 1; do
    step shape-$s-p$p 120 "${b[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch "$n" --din "$d" --hidden "$h" --dout "$o" --iters 400 --print-every 100 \
      --kernel-param PERSIST=$p --json "$out/shape-$s-p$p.json"
  done
done
step test_mlp_fused 300 env CK_RUN_CASE=fused_configs bash "$bundle/env.sh" "$bundle/build/tests/test_mlp"
step seed-all 120 "${b[@]}" mlp --device nvidia --backend cl,clblast --iters 2000 --print-every 500 \
  --kernel-param PERSIST=1 --json "$out/seed-all.json"
