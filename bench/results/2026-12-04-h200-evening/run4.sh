#!/usr/bin/env bash
# Fourth call: the persistent mlp with the counting barrier and phase 1's 16-byte local loads, on
# by default: the seed shape (three times, beside the launches and CLBlast), by work-items per
# group, the shapes of the first call, and the mlp Check cases on the device.
#   bash bench/results/2026-12-04-h200-evening/run4.sh BUNDLE OUT
set -uo pipefail
bundle=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
steps_begin /tmp/call4 "$2/call4.tar.gz"
b=(bash "$bundle/env.sh" "$bundle/build/clgauge")
bash "$bundle/env.sh" nvidia-smi --query-gpu=name,driver_version --format=csv > "$steps_out/gpu.txt" 2>&1
seed=(mlp --device nvidia --iters 2000 --print-every 500)
for r in 1 2 3; do
  step seed-all-$r 90 "${b[@]}" "${seed[@]}" --backend cl,clblast --json "$steps_out/seed-all-$r.json"
done
step seed-launches 60 "${b[@]}" "${seed[@]}" --backend cl --variant fused --kernel-param PERSIST=0 \
  --json "$steps_out/seed-launches.json"
for w in 512 1024; do
  step seed-wg$w 60 "${b[@]}" "${seed[@]}" --backend cl --variant fused \
    --kernel-param WG_PERSIST=$w --json "$steps_out/seed-wg$w.json"
done
step seed-w3 60 "${b[@]}" "${seed[@]}" --backend cl --variant fused --update-w3 \
  --json "$steps_out/seed-w3.json"
for s in 8x16x16x1 8x1024x128x8 64x256x64x8 256x128x128x1 32x512x256x16 1024x16x16x1; do
  IFS=x read -r n d h o <<< "$s"
  step shape-$s 120 "${b[@]}" mlp --device nvidia --backend cl,clblast --batch "$n" --din "$d" \
    --hidden "$h" --dout "$o" --iters 2000 --print-every 500 --json "$steps_out/shape-$s.json"
done
step test_mlp_fused 300 env CK_RUN_CASE=fused_configs bash "$bundle/env.sh" "$bundle/build/tests/test_mlp"
