#!/usr/bin/env bash
# Launch R's columns per block (RC) where launch B's sum of R's shares is long: the fused
# launches at fourteen shapes (those where cl/fused lost or nearly lost on 2026-12-06 among them)
# with RC at the default and at 32 down to 1 (the rule before the shares' bound in its first step
# chose 1 to 8 at these shapes), launch B's copies (BLOC) at their default; the same shapes with
# launch B summing the shares eight outputs at a time (BUNDLE/kd/sum8, written by variant.py) at
# the default RC and at RC 2; then the presets beside clblast and cl/per-op, and shapes drawn at
# random from SEED (random_grid). On an H200 first the big preset's figures owed there.
#   ../shared/device/stage; python3 bench/results/2026-12-06-rc2/variant.py .device
#   bash bench/results/2026-12-06-rc2/run.sh BUNDLE OUT [SEED [COUNT]]
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" rc2
seed=${3:-3} count=${4:-12}
grep -q H200 "$o/gpu.txt" && big_preset_owed
shapes=("63 100 500 64 400" "54 46 367 59 400" "88 264 932 26 400" "40 300 300 64 400"
        "36 58 389 48 400" "75 437 340 46 400" "252 272 119 7 400" "49 247 381 25 400"
        "64 186 1455 62 400" "18 490 1284 16 400" "190 87 65 38 400" "323 16 257 20 400"
        "32 4096 4096 16 208" "8 1024 1024 8 400")
settings_shapes "- RC=32 RC=16 RC=8 RC=4 RC=2 RC=1" "${shapes[@]}"
for sh in "${shapes[@]}"; do
  read -r n d h out it <<< "$sh"
  mlp_shape "$n" "$d" "$h" "$out" "$it"
  variant_step "mlp-$n-$d-$h-$out-sum8" sum8 "${shape[@]}"
  variant_step "mlp-$n-$d-$h-$out-sum8rc2" sum8 "${shape[@]}" --kernel-param RC=2
done
step big-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --preset big \
  --iters 120 --print-every 20 --json "$o/big-preset.json"
step seed-preset 120 "${clgauge[@]}" mlp --device nvidia --backend clblast,cl --iters 2000 \
  --print-every 500 --json "$o/seed-preset.json"
random_grid "$seed" "$count"
