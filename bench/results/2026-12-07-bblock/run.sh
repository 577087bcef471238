#!/usr/bin/env bash
# Launch B with 2 or 4 outputs of y, g3 and dz2 per work-item (BUNDLE/kd/bb2, bb4, written by
# variant.py) beside main's kernels: the fused launches at shapes of batch x dout 2048 to 4032
# (63 x 100 x 500 x 64 among them, where cl/fused lost to cl/per-op on 2026-12-06) and at a few of
# dout 26 or less, two rounds in turn; then those shapes beside clblast and cl/per-op (mlp_grid). On
# an H200 first the big preset's figures owed there. ptxas's register counts of each (regs-NAME).
#   ../shared/device/stage; python3 bench/results/2026-12-07-bblock/variant.py .device
#   bash bench/results/2026-12-07-bblock/run.sh BUNDLE OUT [SHAPES [ROUNDS]]
# SHAPES: the first that many of the list (all ten by default), ROUNDS: 2 by default.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" bblock
grep -q H200 "$o/gpu.txt" && big_preset_owed
shapes=("63 100 500 64 400" "54 46 367 59 400" "40 300 300 64 400" "64 186 1455 62 400"
        "36 58 389 48 400" "75 437 340 46 400" "32 64 256 64 400" "88 264 932 26 400"
        "18 490 1284 16 400" "8 1024 1024 8 400")
count=${3:-${#shapes[@]}} rounds=${4:-2}
shapes=("${shapes[@]:0:$count}")
for round in $(seq "$rounds"); do
  for sh in "${shapes[@]}"; do
    mlp_shape $sh
    read -r n d h out it <<< "$sh"
    for v in main bb2 bb4; do variant_step "mlp-$n-$d-$h-$out-$v-$round" $v "${shape[@]}"; done
  done
done
# ptxas's register counts of launch B in each, at the first shape's build options
read -r n d h out it <<< "${shapes[0]}"
variants_regs "$o/mlp-$n-$d-$h-$out-main-1.json" main bb2 bb4
grid=()
for sh in "${shapes[@]}"; do read -r n d h out it <<< "$sh"; grid+=("${n}x${d}x${h}x${out}"); done
mlp_grid "${grid[@]}"
