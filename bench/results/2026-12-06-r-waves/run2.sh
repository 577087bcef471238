#!/usr/bin/env bash
# Main's kernels (those of e35d62f, after the reverts) on the H200 at the defaults: the big preset
# twice and the nine shapes of ../2026-12-05-h200-launch-a/run3.sh once (the fused launches).
# Then what a HID of 5000 costs launch A over 4992: rows of w1 that start off a 128-byte line,
# or a last column block of 8? 5024 has whole lines and a last block of 32, 5008 neither (16);
# and 5000 x 4992 a last row tile of 8 with whole lines.
#   bash bench/results/2026-12-06-r-waves/run2.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" main-defaults
for round in 1 2; do
  step big-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused --preset big \
    --iters 120 --print-every 40 --json "$o/big-$round.json"
done
for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
          "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
          "32 4096 512 8 400"; do
  set -- $sh
  step mlp-$1-$2-$3-$4 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
    --kernel-param STRATEGY=0,PERSIST=0 --json "$o/mlp-$1-$2-$3-$4.json"
done
for sh in "4992 4992" "4992 5000" "4992 5008" "4992 5024" "5000 4992"; do
  set -- $sh
  step mlp-64-$1-$2-8 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
    --batch 64 --din $1 --hidden $2 --dout 8 --iters 120 --print-every 40 \
    --kernel-param STRATEGY=0,PERSIST=0 --json "$o/mlp-64-$1-$2-8.json"
done
