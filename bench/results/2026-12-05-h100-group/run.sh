#!/usr/bin/env bash
# Pinned at 20000 x 4096, batch 128, by upload group (GROUP) on 8 gathering threads, beside
# resident, two rounds (whichever GPU the device tool lends).
#   bash bench/results/2026-12-05-h100-group/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" group
lin=(linear --device nvidia --backend cl --variant fused --samples 20000 --features 4096
     --classes 16 --batch 128)
for round in 1 2; do
  step resident-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$round.json"
  for g in 1 2 4 8 16; do
    step pinned-g$g-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer pinned \
      --kernel-param THREADS=8,GROUP=$g --json "$o/pinned-g$g-$round.json"
  done
done
