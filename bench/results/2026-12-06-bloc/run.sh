#!/usr/bin/env bash
# Launch B's copies in local memory (BLOC), on whichever card is lent: the fused launches at eight
# shapes with BLOC at the default (2 or 1: as many copies as fit), 0 and 1 in turn; then
# cl/fused's default route beside clblast and cl/per-op at the shapes where it lost or nearly
# lost (2026-12-06-random) and at dout 64 around the copies' limit, the presets, and shapes
# drawn at random from SEED (random_grid). On an H200 first the big preset's figures owed there
# (big_preset_owed).
#   ../shared/device/stage; bash bench/results/2026-12-06-bloc/run.sh BUNDLE OUT [SEED [COUNT]]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" bloc
seed=${3:-2} count=${4:-24}
grep -q H200 "$o/gpu.txt" && big_preset_owed
settings_shapes "- BLOC=0 BLOC=1" "54 46 367 59 400" "88 264 932 26 400" "49 247 381 25 400" \
  "252 272 119 7 400" "18 490 1284 16 400" "9 67 48 11 400" "40 300 300 64 400" \
  "63 100 500 64 400"
step big-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --preset big \
  --iters 120 --print-every 20 --json "$o/big-preset.json"
step seed-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --iters 2000 \
  --print-every 500 --json "$o/seed-preset.json"
mlp_grid 54x46x367x59 88x264x932x26 323x16x257x20 40x300x300x64 63x100x500x64 60x500x200x64
random_grid "$seed" "$count"
