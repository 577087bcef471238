#!/usr/bin/env bash
# Launch R's column rule of shares_within (src/backends/cl/mlp_fused_config.c): the fourteen shapes
# of the RC run before it (2026-12-06-rc2) at the new defaults beside clblast and cl/per-op
# (mlp_grid); ten shapes not used to fit the rule, drawn at random from seed 5 with hidden 100 to
# 4096 (where RC 32 leaves R fewer work-groups than an H100 has compute units), the fused launches
# at the default RC and at 32 down to 1; then the presets and shapes drawn at random from SEED
# (random_grid). On an H200 first the big preset's figures owed there.
#   ../shared/device/stage; bash bench/results/2026-12-06-rc3/run.sh BUNDLE OUT [SEED [COUNT]]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" rc3
seed=${3:-4} count=${4:-12}
grep -q H200 "$o/gpu.txt" && big_preset_owed
mlp_grid 63x100x500x64 54x46x367x59 88x264x932x26 40x300x300x64 36x58x389x48 75x437x340x46 \
  252x272x119x7 49x247x381x25 64x186x1455x62 18x490x1284x16 190x87x65x38 323x16x257x20 \
  32x4096x4096x16 8x1024x1024x8
mapfile -t fresh < <(random_shapes 5 80 | awk -Fx '$3 <= 4096 && $3 >= 100 && $1 * $2 * $3 <= 3e8 {
  print $1, $2, $3, $4, 400 }' | head -10)
settings_shapes "- RC=32 RC=16 RC=8 RC=4 RC=2 RC=1" "${fresh[@]}"
step big-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --preset big \
  --iters 120 --print-every 20 --json "$o/big-preset.json"
step seed-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --iters 2000 \
  --print-every 500 --json "$o/seed-preset.json"
random_grid "$seed" "$count"
