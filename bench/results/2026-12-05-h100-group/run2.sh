#!/usr/bin/env bash
# The second call: pinned at 20000 x 4096, batch 128, on 8 gathering threads with GROUP 16 and
# 32 (the default) interleaved, four rounds, resident first in each.
#   bash bench/results/2026-12-05-h100-group/run2.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" group2
lin=(linear --device nvidia --backend cl --variant fused --samples 20000 --features 4096
     --classes 16 --batch 128)
for round in 1 2 3 4; do
  step resident-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$round.json"
  for g in 16 32; do
    step pinned-g$g-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer pinned \
      --kernel-param THREADS=8,GROUP=$g --json "$o/pinned-g$g-$round.json"
  done
done
