#!/usr/bin/env bash
# Owed H200 call after the row-at-a-time update and RN=4 at batch 16 or less (the staged build):
# the nine shapes of ../2026-12-05-h200-fwr/run3.sh and the big preset at the defaults, twice
# each (STRATEGY=0,PERSIST=0: the fused launches, as those figures were taken); then linear at
# 20000 x 4096, batch 128, resident and pinned with THREADS=4 (the default), 8 and 16, twice each
# (pinned was 2.0-2.2 times resident there with 4, the host's gather what the GPU waited for).
#   bash bench/results/2026-12-05-h200-launch-a/run3.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" h200-launch-a3
for round in 1 2; do
  step big-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused --preset big \
    --iters 120 --print-every 40 --json "$o/big-$round.json"
  for sh in "8 1024 1024 8 400" "8 8192 8192 64 40" "16 4096 4096 16 100" "8 4096 4096 8 200" \
            "1 2048 2048 1 400" "16 1024 8192 8 200" "32 2048 2048 8 400" "64 2048 2048 8 400" \
            "32 4096 512 8 400"; do
    set -- $sh
    n=$1-$2-$3-$4
    step mlp-$n-$round 120 "${clgauge[@]}" mlp --device nvidia --backend cl --variant fused \
      --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 --print-every $(( $5 / 4 )) \
      --kernel-param STRATEGY=0,PERSIST=0 --json "$o/mlp-$n-$round.json"
  done
done
lin=(linear --device nvidia --backend cl --variant fused --samples 20000 --features 4096
     --classes 16 --batch 128)
for round in 1 2; do
  step linear-resident-$round 90 "${clgauge[@]}" "${lin[@]}" --transfer resident \
    --json "$o/linear-resident-$round.json"
  for t in 4 8 16; do
    step linear-pinned-t$t-$round 90 "${clgauge[@]}" "${lin[@]}" --transfer pinned \
      --kernel-param THREADS=$t --json "$o/linear-pinned-t$t-$round.json"
  done
done
