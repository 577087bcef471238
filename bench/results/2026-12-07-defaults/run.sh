#!/usr/bin/env bash
# cl/fused's defaults after the products step's line moved (batch >= 384, or >= 256 with batch x
# din x hidden >= 2^31) and three launches became the GPU's default at batch x dout >= 1024
# (cg_fused_strategy and choose_launches in src/backends/cl/mlp_fused_config.c): first two
# launches (THREE=0) against the default at small shapes on both sides of batch x dout = 1024,
# steps d- and w-N-D-H-O; then beside clblast and cl/per-op (mlp_grid) at the 31 shapes of
# ../2026-12-07-line and at COUNT shapes drawn from SEED (random_grid), tabled by
# ../2026-12-06-close/table.py; on an H200 the big and seed presets (big_preset_owed).
#   ../shared/device/stage
#   bash bench/results/2026-12-07-defaults/run.sh BUNDLE OUT [SEED [COUNT]]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" defaults
seed=${3:-5} count=${4:-36}
for sh in "8 16 16 64" "16 16 16 64" "32 16 16 32" "32 64 64 64" "128 16 16 8" "16 512 512 32" \
          "64 1024 128 16" "200 64 64 64"; do
  read -r n d h out <<< "$sh"
  for v in d:STRATEGY=0 w:STRATEGY=0,THREE=0; do
    step "${v%%:*}-$n-$d-$h-$out" 60 "${clgauge[@]}" mlp --device nvidia --backend cl \
      --variant fused --batch "$n" --din "$d" --hidden "$h" --dout "$out" --iters 400 \
      --print-every 100 --kernel-param "${v#*:}" --json "$o/${v%%:*}-$n-$d-$h-$out.json"
  done
done
mlp_grid 256x256x256x16 256x4096x4096x8 256x64x64x64 256x1024x1024x32 256x2048x1024x16 \
  341x205x7584x7 384x512x512x32 384x2048x2048x8 446x2452x2359x2 512x256x256x16 \
  512x1024x1024x8 512x64x64x64 512x4096x1024x1 512x2048x2048x64 572x27x700x16 633x946x2222x22 \
  768x256x256x16 768x1024x1024x32 1024x64x64x64 1024x16x16x1 1024x256x256x16 1024x128x4096x8 \
  64x8192x128x64 128x512x512x64 96x1000x1000x48 128x4096x4096x8 64x16x16x64 128x64x64x64 \
  32x4096x4096x64 128x8192x8192x32 100x300x300x41
random_grid "$seed" "$count"
if grep -q H200 "$o/gpu.txt"; then
  big_preset_owed
  step seed-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --iters 2000 \
    --print-every 500 --json "$o/seed-preset.json"
fi
