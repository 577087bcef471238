#!/usr/bin/env bash
# The GPU defaults since run3.sh (UR 2 with 8 x 8 blocks, WPF 1 with 8 x 4 blocks from batch 8):
# the big preset twice and five shapes once, at the defaults, from a bundle staged with them.
# First, pinned at linear's default shape three times in a row, then resident: in calls 2 and 3
# the first pinned run at that shape was the slow one (upload 6.5-6.8 us a batch, then 3.2-4.3).
#   bash bench/results/2026-12-05-update/run4.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" defaults
for round in 1 2 3; do
  step pinned-$round 60 "${clgauge[@]}" linear --device nvidia --backend cl --variant fused \
    --transfer pinned --json "$o/pinned-$round.json"
done
step resident-1 60 "${clgauge[@]}" linear --device nvidia --backend cl --variant fused \
  --transfer resident --json "$o/resident-1.json"
for sh in "64 5000 5000 8 120 1" "64 5000 5000 8 120 2" "8 8192 8192 64 40 1" \
          "16 4096 4096 16 100 1" "8 4096 4096 8 200 1" "1 2048 2048 1 400 1" \
          "64 2048 2048 8 400 1"; do
  read -r nb din hid dout iters round <<< "$sh"
  n=$nb-$din-$hid-$dout
  step mlp-$n-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --batch "$nb" --din "$din" --hidden "$hid" --dout "$dout" --iters "$iters" \
    --print-every $(( iters / 4 )) --kernel-param STRATEGY=0,PERSIST=0 --json "$o/mlp-$n-$round.json"
done
