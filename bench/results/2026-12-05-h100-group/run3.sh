#!/usr/bin/env bash
# The third call, at 5dfb8b4 (pinned's group halved while it would pass 48 MiB): pinned at
# 20000 x 4096, batch 128, at its defaults (GROUP 16 by the rule, THREADS 8), beside resident,
# three rounds.
#   bash bench/results/2026-12-05-h100-group/run3.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" group3
lin=(linear --device nvidia --backend cl --variant fused --samples 20000 --features 4096
     --classes 16 --batch 128)
for round in 1 2 3; do
  step resident-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer resident --json "$o/resident-$round.json"
  step pinned-$round 120 "${clgauge[@]}" "${lin[@]}" --transfer pinned --json "$o/pinned-$round.json"
done
