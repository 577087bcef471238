#!/usr/bin/env bash
# Launch B's rows over work-groups by default (BROWS = ceil(batch / compute units) on a GPU with
# three launches): first the shapes of run.sh and the seed and big presets at the defaults beside
# clblast and cl/per-op (mlp_grid), and linear resident (the persistent paths with the grid
# barrier's last work-item leading, cl/grid_sync.cl); then the fused launches (STRATEGY=0)
# against the products step (STRATEGY=1) at shapes where cl/fused routes to the products step
# (batch x dout >= 4096, or batch >= 128 with batch x din x hidden >= 2^26: fused_strategy in
# src/backends/cl/mlp.c), and those shapes' grid at the defaults.
#   ../shared/device/stage   # the working tree's build in BUNDLE/build
#   bash bench/results/2026-12-07-brows/route.sh BUNDLE OUT
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" route
mlp_grid 63x100x500x64 54x46x367x59 64x5000x5000x8 40x300x300x64 64x186x1455x62 88x264x932x26 \
  32x64x256x64 256x2048x1024x16 64x1024x128x8
step linear-resident 120 "${clgauge[@]}" linear --device nvidia --backend cl --variant fused \
  --transfer resident --json "$o/linear-resident.json"
# batch din hidden dout iters
shapes=("64 8192 128 64 200" "128 512 512 64 200" "96 1000 1000 48 200" "512 64 64 64 200"
        "1024 256 256 16 200" "256 1024 1024 32 100" "1024 1024 1024 8 60"
        "128 4096 4096 8 40" "1024 8192 1024 1 20")
for sh in "${shapes[@]}"; do
  read -r n d h out it <<< "$sh"
  for st in 0 1; do
    step "s$st-$n-$d-$h-$out" 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch "$n" --din "$d" --hidden "$h" --dout "$out" --iters "$it" --print-every $(( it / 4 )) \
      --kernel-param STRATEGY=$st,PERSIST=0 --json "$o/s$st-$n-$d-$h-$out.json"
  done
done
grid=()
for sh in "${shapes[@]}"; do read -r n d h out it <<< "$sh"; grid+=("${n}x${d}x${h}x${out}"); done
mlp_grid "${grid[@]}"
