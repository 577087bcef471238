#!/usr/bin/env bash
# One call: launch R's sums four columns at a time as float4 reads of the partials (RV=4, the
# bundle's default on GPUs where hidden, its pitch and RC are multiples of 4) against one column
# at a time (RV=1, main's way), in turn: the big preset three times each, then six shapes of
# three launches once each.
#   bash bench/results/2026-12-06-rv/run.sh BUNDLE OUT     (from the checkout's root)
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/steps.sh"
device_call "$1" "$2" rv
for round in 1 2 3; do
  for rv in 1 4; do
    step big-rv$rv-$round 120 "${clgauge[@]}" "${big_preset[@]}" --kernel-param RV=$rv \
      --json "$o/big-rv$rv-$round.json"
  done
done
for sh in "96 5000 5000 8 120" "64 4992 4992 8 120" "128 2048 8192 8 100" "64 2048 2048 8 400" \
          "16 4096 4096 16 100" "8 8192 8192 64 40"; do
  set -- $sh
  for rv in 1 4; do
    step mlp-$1-$2-$3-$4-rv$rv 120 "${clgauge[@]}" mlp --device nvidia --backend cl \
      --variant fused --batch $1 --din $2 --hidden $3 --dout $4 --iters $5 \
      --print-every $(( $5 / 4 )) --kernel-param STRATEGY=0,PERSIST=0,RV=$rv \
      --json "$o/mlp-$1-$2-$3-$4-rv$rv.json"
  done
done
